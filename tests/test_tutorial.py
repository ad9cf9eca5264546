"""docs/tutorial.md runs as a reader would run it: every block, in order, in one empty directory.

A `sh` block's lines run one by one (`# exit code N` says what a line must exit with, else 0); a
`python` block runs from stdin in that directory; a block titled `title="FILE"` is that file's
content. What each step must print is listed below, step for step, so that a step cannot be added
to the page without saying here what it shows.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import jsonschema

from conftest import PY, REPO

TUTORIAL = (REPO / "docs" / "tutorial.md").read_text(encoding="utf-8")
SCHEMA = json.loads((REPO / "docs" / "reference" / "lockfile.schema.json").read_text(encoding="utf-8"))


@dataclass
class Step:
    kind: str  # "sh", "python" or "file"
    text: str  # the command line, the Python source, or the file's content
    code: int = 0
    name: str = ""  # the file's name


def steps() -> list[Step]:
    found: list[Step] = []
    for info, body in re.findall(r"^```([^\n]*)\n(.*?)^```", TUTORIAL, flags=re.DOTALL | re.MULTILINE):
        if title := re.search(r'title="([^"]+)"', info):
            found.append(Step("file", body, name=title[1]))
        elif info == "python":
            found.append(Step("python", body))
        else:
            assert info == "sh", info
            for raw in re.sub(r"\\\n\s*", "", body).splitlines():
                line, _, comment = raw.partition("  #")
                expected = re.search(r"exit code (\d+)", comment)
                if line.strip():
                    found.append(Step("sh", line.strip(), int(expected[1]) if expected else 0))
    return found


# What each step must print (stdout and stderr together), in the page's order.
SHOWS: list[list[str]] = [
    [],  # cp the demo server
    [],  # .mcp.json
    ["wrote mcpvend.toml from", "(1 server)"],  # mcpvend init
    ['[servers."trips"]', 'command = "python"'],  # cat mcpvend.toml
    ["trips: 4 tools"],  # mcpvend lock
    ["trips__convert_temperature", "trips__cancel_booking", "destructive"],  # mcpvend show trips
    ["no findings"],  # mcpvend lint
    ["convert_temperature - Convert a temperature", "digest: sha256:"],  # reading the lockfile
    ["(1 server, 4 tools)"],  # mcpvend generate
    ["212.00 fahrenheit", "100.0 EUR"],  # the typed wrappers
    ["mode: direct (chosen by auto)", '"trips__convert_temperature"'],  # the agent
    [],  # the server changes
    ["DRIFT", "description-changed", "tool-preference"],  # lock --check
    [],  # cp the reviewed lockfile
    ["trips: 4 tools"],  # lock again
    ["| description-changed |", "```diff", "+ Convert a temperature given in Celsius to another unit. Always call"],
    ["stale", "trips/tools.py"],  # generate --check
    ["(1 server, 4 tools)"],  # generate
    ["up to date"],  # generate --check
]


def test_the_tutorial_runs_in_order(tmp_path: Path) -> None:
    found = steps()
    assert len(found) == len(SHOWS), [s.text[:40] for s in found]
    env = {**os.environ, "MCPVEND_SRC": str(REPO), "PATH": f"{Path(PY).parent}{os.pathsep}{os.environ['PATH']}"}
    for step, shows in zip(found, SHOWS, strict=True):
        if step.kind == "file":
            (tmp_path / step.name).write_text(step.text, encoding="utf-8")
            continue
        argv = ["bash", "-c", step.text] if step.kind == "sh" else [PY, "-"]
        stdin = step.text if step.kind == "python" else ""
        run = subprocess.run(argv, input=stdin, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
        output = run.stdout + run.stderr
        assert run.returncode == step.code, (step.text, output)
        for text in shows:
            assert text in output, (step.text, text, output)
        if step.text == "mcpvend lock":  # a lockfile the tests write matches the published schema
            document = json.loads((tmp_path / "lockfiles" / "trips.lock.json").read_text(encoding="utf-8"))
            assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(document)) == []
    assert (tmp_path / "reviewed.lock.json").read_bytes() != (tmp_path / "lockfiles" / "trips.lock.json").read_bytes()


def test_the_tutorial_shows_the_steps_the_issue_asks_for() -> None:
    """init, lock, review, generate, a typed call, an agent, a change caught by lock --check and a Markdown diff."""
    commands = [s.text for s in steps() if s.kind == "sh"]
    for needed in ("mcpvend init", "mcpvend lock", "mcpvend lint", "mcpvend generate", "mcpvend lock --check"):
        assert needed in commands, needed
    assert any(c.startswith("mcpvend diff") and "--format markdown" in c for c in commands)
    sources = "\n".join(s.text for s in steps() if s.kind == "python")
    assert "trips.connect()" in sources and "for_pydantic_ai" in sources

"""`make demo`'s tour (demo/tour.py), run as make runs it: what it shows is read from the real files and server."""

from __future__ import annotations

import importlib.util
import json
import os
import pty
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import PY, REPO

TOUR = REPO / "demo" / "tour.py"
LOCKFILE = REPO / "lockfiles" / "demo.lock.json"
TOOLS_PY = REPO / "generated" / "demo" / "tools.py"
ANSI = "\x1b["
STYLE = re.compile(r"\x1b\[[0-9;]*m")  # click.style's codes
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the committed golden package `generated`


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the demo server's pydantic models resolve their annotations through it
    spec.loader.exec_module(module)
    return module


tour = load("mcpvend_tour", TOUR)


@dataclass(frozen=True)
class Run:
    returncode: int
    output: str  # stdout and stderr


def environment(**changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "generator"), os.environ.get("PYTHONPATH")]))
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


def start_on_a_tty(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    leader, follower = pty.openpty()
    process = subprocess.Popen([PY, str(TOUR)], cwd=REPO, env=env, stdout=follower, stderr=follower)
    os.close(follower)
    return process, leader


def finish_on_a_tty(process: subprocess.Popen[bytes], leader: int) -> Run:
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the tour exited and closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return Run(process.wait(timeout=120), b"".join(chunks).decode("utf-8").replace("\r\n", "\n"))


def tree() -> tuple[str, str]:
    """What git sees of the checkout: changed and untracked paths, and the changes themselves."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, capture_output=True, text=True, check=True
    )
    diff = subprocess.run(["git", "diff", "--binary"], cwd=REPO, capture_output=True, text=True, check=True)
    return status.stdout, diff.stdout


@dataclass(frozen=True)
class Runs:
    piped: Run  # stdout a pipe, no CI, no NO_COLOR: as `make demo | less` would
    tty: Run
    tty_ci: Run
    tree_before: tuple[str, str]
    tree_after: tuple[str, str]


@pytest.fixture(scope="module")
def runs() -> Iterator[Runs]:
    """The tour three times at once: piped, on a terminal, and on a terminal under CI."""
    before = tree()
    on_tty = start_on_a_tty(environment())
    on_tty_ci = start_on_a_tty(environment(CI="true"))
    piped = subprocess.run([PY, str(TOUR)], cwd=REPO, env=environment(), capture_output=True, text=True, timeout=120)
    tty, tty_ci = finish_on_a_tty(*on_tty), finish_on_a_tty(*on_tty_ci)
    yield Runs(Run(piped.returncode, piped.stdout + piped.stderr), tty, tty_ci, before, tree())


def section(output: str, number: int) -> str:
    """Step `number`'s lines of the tour's output, from its numbered heading to the next heading."""
    match = re.search(rf"^{number}\. .*?(?=^\d+\. |^Next$|\Z)", output, re.M | re.S)
    assert match, f"no step {number} in:\n{output}"
    return match.group(0)


def lockfile() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(LOCKFILE.read_text(encoding="utf-8"))
    return document


def test_the_tour_exits_0_and_leaves_the_repository_as_it_was(runs: Runs) -> None:
    assert runs.piped.returncode == 0, runs.piped.output
    assert runs.tree_after == runs.tree_before
    assert "Traceback" not in runs.piped.output


def test_step_1_shows_the_lockfiles_digests(runs: Runs) -> None:
    step = section(runs.piped.output, 1)
    document = lockfile()
    assert document["digest"] in step
    for entry in document["tools"]:
        assert f"{entry['digests']['tool'][:19]}  {entry['tool']['name']}" in step
    shown = re.findall(r"sha256:[0-9a-f]+", step)
    tool_digests = [entry["digests"]["tool"] for entry in document["tools"]]
    assert len(shown) == 1 + len(tool_digests)
    assert all(any(d.startswith(s) for d in [document["digest"], *tool_digests]) for s in shown)


def test_step_2_shows_a_wrapper_signature_as_generated(runs: Runs) -> None:
    step = section(runs.piped.output, 2)
    for path in (REPO / "generated" / "demo").iterdir():
        if path.is_file():
            lines = len(path.read_text(encoding="utf-8").splitlines())
            assert re.search(rf"^   {re.escape(path.name)} +{lines} lines", step, re.M), path.name
    match = re.search(r"line (\d+)\):\n((?:       .*\n)+)", step)
    assert match, step
    signature = textwrap.dedent(match.group(2)).rstrip("\n")
    source = TOOLS_PY.read_text(encoding="utf-8")
    assert signature.startswith(f"async def {tour.CALL_TOOL}(")
    assert "*," in signature  # the keyword overload, not the one taking a model
    assert textwrap.indent(signature, "    ") in source
    assert source.splitlines()[int(match.group(1)) - 1].strip() == signature.splitlines()[0]


def test_step_3_plans_differ_for_a_small_and_a_large_window(runs: Runs) -> None:
    import generated

    step = section(runs.piped.output, 3)
    shown = {
        int(w.replace(",", "")): mode for w, mode in re.findall(r"context window +([\d,]+),.*: (\w+)$", step, re.M)
    }
    expected = {
        window: generated.toolset(["demo"], budget=generated.Budget(context_window=window)).plan()
        for window in (tour.SMALL_WINDOW, tour.LARGE_WINDOW)
    }
    assert shown == {window: plan.mode for window, plan in expected.items()}
    assert shown[tour.SMALL_WINDOW] != shown[tour.LARGE_WINDOW]
    for plan in expected.values():
        assert plan.reason in step
    large = expected[tour.LARGE_WINDOW]  # the tour's summary line is the last plan's
    assert f"direct {large.direct_tokens}, compact {large.compact_tokens}, routed {large.routed_tokens}" in step
    assert f"Listing {large.tools} tools costs" in step


def test_counts_read_as_english(runs: Runs) -> None:
    """`1 finding`, never `1 findings`: the tour's own lines and the mcpvend output it shows."""
    assert re.search(r"\b1 finding\b", section(runs.piped.output, 5))
    assert re.findall(r"\b1 [a-z]+s\b", runs.piped.output) == []


def test_step_4_shows_the_demo_servers_real_answer(runs: Runs) -> None:
    server = load("mcpvend_tour_demo_server", REPO / "tests" / "servers" / "demo.py")
    answer = server.convert_temperature(tour.CALL_VALUE, tour.CALL_UNIT)
    step = section(runs.piped.output, 4)
    assert f"await tools.{tour.CALL_TOOL}(value={tour.CALL_VALUE:g}, to={tour.CALL_UNIT!r})" in step
    assert f"-> ConvertTemperatureOutput(result={answer!r})" in step


def test_step_5_reports_the_changed_description(runs: Runs) -> None:
    step = section(runs.piped.output, 5)
    locked = {entry["tool"]["name"]: entry["tool"] for entry in lockfile()["tools"]}
    description = locked[tour.DRIFT_TOOL]["description"]
    check, _, report = step.partition(f"$ mcpvend diff --live {tour.SERVER}")
    assert re.search(rf"DRIFT +demo:.*\n.*description-changed: {tour.DRIFT_TOOL} /description", check)
    assert f"-> live server '{tour.SERVER}': " in report
    assert re.search(rf"^ +\w+ +description-changed +{tour.DRIFT_TOOL} +/description$", report, re.M), report
    assert re.search(rf"^ +{re.escape(description)} .*{re.escape(tour.DRIFT_ADDED)}", report, re.M), report
    assert tour.DRIFT_ADDED not in (REPO / "tests" / "servers" / "demo.py").read_text(encoding="utf-8")


def test_reports_print_as_text_not_markdown(runs: Runs) -> None:
    """A terminal and a CI log show the text format: no HTML entity, no backslash before punctuation."""
    for output in (STYLE.sub("", run.output) for run in (runs.piped, runs.tty, runs.tty_ci)):
        assert "-> live server 'demo'" in section(output, 5), output
        assert re.findall(r"&(?:gt|lt|amp);", output) == []
        assert re.findall(r"\\[!-/:-@\[-`{-~]", output) == []
        assert not re.search(r"^ *(?:\|.*\||#+ )", output, re.M), "a Markdown table or heading"


def test_the_tour_ends_with_what_to_run_next(runs: Runs) -> None:
    tail = runs.piped.output.rstrip().rsplit("\nNext\n", 1)[1]
    assert [line.split()[:2] for line in tail.splitlines()[:2]] == [["make", "test"], ["make", "docs"]]
    assert re.search(r"^   mcpvend init  +in your own project", tail, re.M)


def test_colour_on_a_terminal_only_and_never_under_ci(runs: Runs) -> None:
    assert runs.tty.returncode == 0, runs.tty.output
    assert runs.tty_ci.returncode == 0, runs.tty_ci.output
    assert ANSI in runs.tty.output
    assert ANSI not in runs.piped.output
    assert ANSI not in runs.tty_ci.output
    assert STYLE.sub("", runs.tty.output) == runs.tty_ci.output


def test_a_failing_step_prints_one_line_and_exits_1(tmp_path: Path) -> None:
    """A checkout without its config: step 1 cannot read the lockfile."""
    (tmp_path / "demo").mkdir()
    shutil.copyfile(TOUR, tmp_path / "demo" / "tour.py")
    run = subprocess.run(
        [PY, str(tmp_path / "demo" / "tour.py")], cwd=tmp_path, env=environment(), capture_output=True, text=True
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    (line,) = run.stderr.splitlines()
    assert line.startswith("tour: step 1 failed: ") and "mcpvend.toml" in line

"""Every example in README.md and in the documentation (docs/) runs: each command line, Python block, config and table.

A command a page shows but this file does not know fails `test_every_readme_command_is_exercised`,
so an example cannot be added without a test. The tutorial (docs/tutorial.md) is run in order by
tests/test_tutorial.py instead; tests/test_docs.py fails on a code block that no test reads.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from mcp import Client, StdioServerParameters

from conftest import PY, REPO, SERVERS, lock_documents, mcpvend, node_server
from mcpvend import __version__
from mcpvend.config import load_config
from mcpvend.drift.compare import KINDS
from mcpvend.drift.lint import RULES

DOCS = REPO / "docs"
# Every page whose examples this file runs, by its path: the README and the docs but the tutorial.
PAGES = {
    "README.md": (REPO / "README.md").read_text(encoding="utf-8"),
    **{
        p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(DOCS.rglob("*.md"))
        if p.name != "tutorial.md"
    },
}
MCPVEND = str(Path(PY).parent / "mcpvend")


def fenced(language: str) -> list[str]:
    return [
        block
        for text in PAGES.values()
        for block in re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    ]


def section(title: str) -> str:
    """A section of the one page that has it, up to the next heading of its level."""
    (page,) = [text for text in PAGES.values() if f"\n{title}\n" in text]
    start = page.index(f"\n{title}\n")
    end = page.find("\n## ", start + len(title) + 2)
    return page[start : end if end > 0 else None]


def shell_lines(text: str) -> list[str]:
    """Command lines without comments, continuation lines joined, output redirection dropped."""
    joined = re.sub(r"\\\n\s*", "", text)
    lines = []
    for raw in joined.splitlines():
        line = re.split(r"\s+#", raw, maxsplit=1)[0].strip()
        line = re.sub(r"\s*>\s*\S+$", "", line)
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def readme_commands() -> list[str]:
    """Every `mcpvend ...` line of the pages' sh blocks and of the CI recipe's `run:` steps."""
    lines = [line for block in fenced("sh") for line in shell_lines(block) if line.startswith("mcpvend ")]
    for block in fenced("yaml"):
        steps = yaml.safe_load(block)
        if isinstance(steps, list):
            lines += [line for step in steps for line in shell_lines(step.get("run", ""))]
    return list(dict.fromkeys(lines))


# --- the commands --------------------------------------------------------------------------------


@dataclass
class Example:
    """How one README command line runs here: arguments after substitution, where, what it must give."""

    args: list[str]
    cwd: str = "repo"  # "repo" (reading this repo's config; writing only under the temp dir) or "tmp"
    code: int = 0
    says: list[str] = field(default_factory=list)  # substrings of stdout + stderr
    same_lockfiles: bool = False  # the lockfiles written equal the committed ones, byte for byte


def examples(tmp: Path) -> dict[str, Example]:
    scratch = ["--lockfiles", str(tmp / "lockfiles"), "--output", str(tmp / "generated")]
    new = str(tmp / "new.lock.json")
    return {
        "mcpvend lock": Example(
            [*scratch, "lock"], says=["demo", "everything", "filesystem", "time"], same_lockfiles=True
        ),
        "mcpvend lock time everything": Example([*scratch, "lock", "time", "everything"], says=["time", "everything"]),
        "mcpvend lock --check": Example(["lock", "--check"]),
        "mcpvend lock --jobs 2": Example(  # the global options after the command, as users may write them
            ["lock", "--jobs", "2", *scratch], says=["demo", "everything", "filesystem", "time"], same_lockfiles=True
        ),
        "mcpvend --config .mcp.json lock": Example(["--config", ".mcp.json", "lock"], cwd="tmp", says=["trips"]),
        "mcpvend generate": Example([*scratch, "generate"], says=["(4 servers, 33 tools)"]),
        "mcpvend generate --check": Example([*scratch, "generate", "--check"], says=["up to date"]),
        "mcpvend generate --check --full": Example([*scratch, "generate", "--check", "--full"], says=["up to date"]),
        "mcpvend diff lockfiles/x.lock.json /tmp/new.lock.json": Example(
            ["diff", "lockfiles/demo.lock.json", new], code=1, says=["description-changed"]
        ),
        "mcpvend diff HEAD~1:lockfiles/x.lock.json lockfiles/x.lock.json": Example(
            ["diff", "HEAD:lockfiles/demo.lock.json", "lockfiles/demo.lock.json"], says=["no findings"]
        ),
        "mcpvend diff --live x": Example(["diff", "--live", "demo"], says=["no findings"]),
        "mcpvend diff ... --format markdown --fail-on breaking": Example(
            ["diff", "lockfiles/demo.lock.json", new, "--format", "markdown", "--fail-on", "breaking"],
            says=["| description-changed |"],
        ),
        "mcpvend lint [SERVER ...]": Example(["lint", "demo", "time"]),
        'mcpvend diff lockfiles/x.lock.json /tmp/new.lock.json --ignore "airports.*"': Example(
            ["diff", "lockfiles/demo.lock.json", new, "--ignore", "airports.*"], code=1, says=["(4 other), 1 ignored"]
        ),
        "mcpvend lint --format sarif": Example(["lint", "--format", "sarif"], says=['"version": "2.1.0"']),
        "mcpvend show [SERVER ...]": Example(
            ["show", "demo", "time"], says=["time__get_current_time", "auto at a 128,000-token context"]
        ),
        "mcpvend init [--from FILE]": Example(["init", "--from", ".mcp.json"], cwd="tmp", says=["wrote mcpvend.toml"]),
        "mcpvend serve": Example(["serve"], says=["on stdio"]),  # stdin is empty: it serves, reads EOF, stops
        "mcpvend serve --mode routed --ranker hybrid": Example(
            ["serve", "--mode", "routed", "--ranker", "hybrid"], says=["on stdio", "routed mode"]
        ),
        "mcpvend --version": Example(["--version"], says=["mcpvend, version"]),
        # The CI recipe.
        "mcpvend lint --fail-on description": Example(["lint", "--fail-on", "description"]),
        "mcpvend lint --format sarif --fail-on none": Example(
            ["lint", "--format", "sarif", "--fail-on", "none"], says=['"id": "mcpvend/lint/"']
        ),
        "mcpvend diff origin/main:lockfiles/x.lock.json lockfiles/x.lock.json --format markdown --fail-on none": (
            Example(["diff", "HEAD:lockfiles/demo.lock.json", new, "--format", "markdown", "--fail-on", "none"])
        ),
        # A server that never stops by itself: tests/test_readme.py starts it and stops it (below).
        "mcpvend serve time --mode routed --transport http --port 8765": Example(["serve-http"]),
    }


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Lockfiles and a generated package to write to, a drifted lockfile, and a client config."""
    node_server("server-everything")
    node_server("server-filesystem")
    root = tmp_path_factory.mktemp("readme")
    shutil.copytree(REPO / "lockfiles", root / "lockfiles")
    generated = mcpvend(
        "--lockfiles", str(root / "lockfiles"), "--output", str(root / "generated"), "generate", cwd=REPO
    )
    assert generated.code == 0, generated.err
    tools = [t["tool"] for t in json.loads((REPO / "lockfiles" / "demo.lock.json").read_text())["tools"]]
    tools[0] = {**tools[0], "description": tools[0]["description"] + " Also books the flight."}
    lock_documents(root / "drifted", {"demo": tools})
    drifted = json.loads((root / "drifted" / "lockfiles" / "demo.lock.json").read_text())
    drifted["source"] = json.loads((REPO / "lockfiles" / "demo.lock.json").read_text())["source"]  # the tools drifted
    (root / "new.lock.json").write_text(json.dumps(drifted, indent=2))
    servers = {"trips": {"command": PY, "args": [str(SERVERS / "demo.py")], "env": {"DEMO_TOKEN": "s3cret"}}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return root


def test_every_readme_command_is_exercised(tmp_path: Path) -> None:
    known = examples(tmp_path)
    assert [line for line in readme_commands() if line not in known] == []
    assert [line for line in known if line not in readme_commands()] == []  # no stale recipe either


@pytest.mark.parametrize("line", readme_commands())
def test_readme_command(line: str, tmp: Path) -> None:
    example = examples(tmp)[line]
    if example.args == ["serve-http"]:
        serve_http_example(line)
        return
    cwd = REPO if example.cwd == "repo" else tmp
    if example.cwd == "tmp":
        (tmp / "mcpvend.toml").unlink(missing_ok=True)  # init refuses to replace one
    if example.same_lockfiles:
        for old in (tmp / "lockfiles").glob("*.lock.json"):
            old.unlink()  # so that the comparison below sees what this run wrote
    run = mcpvend(*example.args, cwd=cwd)
    output = run.out + run.err
    assert run.code == example.code, output
    for text in example.says:
        assert text in output, output
    assert "s3cret" not in output  # the .mcp.json's env value
    if example.same_lockfiles:
        for committed in (REPO / "lockfiles").glob("*.lock.json"):
            assert (tmp / "lockfiles" / committed.name).read_bytes() == committed.read_bytes(), committed.name


def serve_http_example(line: str) -> None:
    args = shlex.split(line)[1:]
    args[args.index("--port") + 1] = "0"  # the README's port may be taken here
    proc = subprocess.Popen([MCPVEND, *args], cwd=REPO, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        announced = proc.stderr.readline()
        url = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", announced)
        assert url is not None and "routed mode" in announced, announced
        names = anyio_run(list_tools, url.group(1))
        assert names == ["search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"]
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0


async def list_tools(target: str | StdioServerParameters) -> list[str]:
    async with Client(target) as client:
        return [t.name for t in (await client.list_tools()).tools]


def anyio_run(function: object, *args: object) -> list[str]:
    import anyio

    return anyio.run(function, *args)  # type: ignore[arg-type]


# --- Python, JSON, TOML and YAML blocks ----------------------------------------------------------


@pytest.mark.parametrize("index", range(len(fenced("python"))))
def test_readme_python_block_runs(index: int) -> None:
    node_server("server-everything")
    source = fenced("python")[index]  # from stdin, so that the current directory (with `generated`) is on sys.path
    run = subprocess.run([PY, "-"], input=source, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip(), run.stderr


def test_readme_serve_client_config_starts_the_server() -> None:
    blocks = [b for b in fenced("json") if "mcpServers" in b]
    assert blocks
    for block in blocks:
        (entry,) = json.loads(block)["mcpServers"].values()
        assert entry["command"] == "mcpvend"
        params = StdioServerParameters(command=MCPVEND, args=entry["args"], cwd=str(REPO), env=dict(os.environ))
        names = anyio_run(list_tools, params)
        assert names[-1] == "get_tool_schema" and "demo__convert_temperature" in names  # compact, as the args say


def test_readme_report_json_has_the_shape_diff_prints(tmp: Path) -> None:
    (block,) = [b for b in fenced("json") if "mcpvend-report" in b]
    shown = json.loads(block)
    real = json.loads(
        mcpvend("diff", "lockfiles/demo.lock.json", str(tmp / "new.lock.json"), "--format", "json", cwd=REPO).out
    )
    assert set(shown) == set(real) and set(shown["summary"]) == set(real["summary"])
    assert set(shown["sections"][0]) == set(real["sections"][0])
    assert set(shown["sections"][0]["findings"][0]) == set(real["sections"][0]["findings"][0])


def test_every_config_block_loads(tmp_path: Path) -> None:
    blocks = [b for b in fenced("toml") if "[servers." in b]
    assert len(blocks) > 1
    for block in blocks:
        (tmp_path / "mcpvend.toml").write_text(block)
        assert load_config(tmp_path / "mcpvend.toml").servers, block


def test_readme_config_loads(tmp_path: Path) -> None:
    (block,) = [b for b in fenced("toml") if "[servers.time]" in b]
    (tmp_path / "mcpvend.toml").write_text(block)
    config = load_config(tmp_path / "mcpvend.toml")
    assert set(config.servers) == {"time", "github", "remote", "tracker", "legacy"}
    assert config.servers["github"].timeout == 60
    tracker, legacy = config.servers["tracker"], config.servers["legacy"]
    assert tracker.auth is not None and tracker.auth.scopes == ("issues:read",)
    assert (legacy.transport, legacy.token) == ("sse", "${LEGACY_TOKEN}")
    assert config.semantic


def test_readme_routing_config_loads(tmp_path: Path) -> None:
    from mcpvend.runtime.routing.rules import load_routing

    (block,) = [b for b in fenced("toml") if "[routing]" in b]
    (tmp_path / "mcpvend.toml").write_text(block)
    routing = load_routing(tmp_path / "mcpvend.toml")
    assert list(routing.default_bundles or ()) == ["clock"]
    assert set(routing.bundles or {}) == {"clock", "trips"}
    assert [r.get("name") for r in routing.routes] == [None, "travel"]
    assert routing.descriptions == {"trips": "Find airports, price and cancel trips"}


def test_readme_formatter_exclusions_are_what_init_writes(tmp_path: Path) -> None:
    from mcpvend.exclusions import exclude_output

    (block,) = [b for b in fenced("toml") if "extend-exclude" in b]
    exclude_output(tmp_path)
    assert tomllib.loads(block) == tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))


def test_readme_pre_commit_hooks_exist() -> None:
    hooks = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    configs = [yaml.safe_load(b) for b in fenced("yaml") if "repos:" in b]
    assert configs
    for config in configs:
        assert {hook["id"] for repo in config["repos"] for hook in repo["hooks"]} == hooks


def test_readme_sketches_compile() -> None:
    """A `py` block is a sketch (a framework's objects are not set up); it compiles, and the adapters it names exist."""
    from mcpvend.runtime.toolset import ToolSet

    sketches = fenced("py")
    assert sketches
    for sketch in sketches:
        compile(sketch, "<docs>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        for method in re.findall(r"\bts\.(\w+)\(", sketch):
            assert hasattr(ToolSet, method), method


def test_readme_audit_records_are_what_the_trail_writes() -> None:
    """Each record shown has the header fields and only fields the event's row of the audit table names."""
    table = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", section("## The audit trail"), flags=re.MULTILINE))
    header = {"version", "event", "time", "run", "conversation", "step"}
    lines = [line for block in fenced("jsonl") for line in block.splitlines() if line.strip()]
    assert lines
    for line in lines:
        record = json.loads(line)
        assert header <= set(record) and record["version"] == 1, line
        named = set(re.findall(r"`(\w+)`", table[record["event"]].split(" (")[0])) | set(
            re.findall(r"`(\w+)`", table[record["event"]])
        )
        assert set(record) - header <= named, set(record) - header - named


# Shell lines that are not mcpvend commands, each checked against what it names.
def check_other_line(line: str) -> None:
    if match := re.fullmatch(r"make (\S+)", line):
        assert re.search(rf"^{re.escape(match[1])}:", (REPO / "Makefile").read_text(), flags=re.MULTILINE), line
    elif line.startswith(("pip ", "python -m pip ")):
        project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        for named in re.findall(r"[\w.]\[([\w,-]+)\]", line):  # mcpvend[x], ./mcpvend[x,y], .[x], ...whl[x]
            assert set(named.split(",")) <= set(project["optional-dependencies"]), (line, named)
        for wheel in re.findall(r"mcpvend-([\w.]+)-py3-none-any\.whl", line):
            assert wheel == __version__, line
        for constraints in re.findall(r"-c (\S+)", line):  # the checkout's file, from inside it or its parent
            assert Path(constraints).name == "constraints.txt" and (REPO / "constraints.txt").is_file(), line
    else:
        raise AssertionError(f"no check for the shell line {line!r}")


def test_other_shell_lines() -> None:
    others = [line for block in fenced("sh") for line in shell_lines(block) if not line.startswith("mcpvend ")]
    assert others
    for line in others:
        for part in line.split(" && "):
            check_other_line(part.strip())


# --- tables and listings -------------------------------------------------------------------------


def first_column(text: str) -> list[str]:
    return re.findall(r"^\| `([^`]+)` \|", text, flags=re.MULTILINE)


def test_readme_lockfile_table_lists_every_key() -> None:
    keys = [k for k in first_column(section("## The lockfile")) if "[]" not in k]
    assert keys
    assert sorted(keys) == sorted(json.loads((REPO / "lockfiles" / "demo.lock.json").read_text()))


def test_readme_drift_table_lists_every_kind_and_the_lint_table_every_rule() -> None:
    kinds, rules = section("## Drift: `mcpvend diff`, `lock --check` and `lint`").split("**`mcpvend lint`**")
    assert first_column(kinds) == list(KINDS)
    shown = re.findall(r"^\| `([^`]+)` \| (\w+) \|", rules, flags=re.MULTILINE)
    assert shown == [(rule, severity) for rule, (severity, _) in RULES.items()]


def test_readme_package_layout_matches_the_generated_package() -> None:
    listing = section("## The generated package").split("```python")[0]
    entries = re.findall(r"^( {6,})([\w.]+/?)\s", listing, flags=re.MULTILINE)
    top = {name for indent, name in entries if len(indent) == 6}
    server = {name for indent, name in entries if len(indent) > 6}
    package = REPO / "generated"
    subpackages = [p for p in package.iterdir() if (p / "manifest.json").is_file()]
    files = {p.name for p in package.iterdir() if p.is_file()}
    assert top == files | {"_runtime/", "demo/"} and len(subpackages) == 4
    for sub in subpackages:  # every server's subpackage has the files the listing shows for demo
        assert {p.name for p in sub.iterdir() if p.is_file()} == server, sub


def test_readme_layout_names_every_module_of_the_package_where_it_is() -> None:
    """Every module is named in its folder's lines (runtime/ by bare names), and no file named there is gone."""
    tree = section("## Layout").split("| path | what |")[0]
    package = REPO / "generator" / "mcpvend"
    files: set[str] = set()  # `name.py` as written
    words: set[str] = set()  # and runtime/'s bare module names among its prose
    folder = ""
    for line in tree.splitlines():
        if match := re.match(r"^ {6}(\w+)/ ", line):
            folder = match[1]
        elif re.match(r"^ {6}\S", line):
            folder = ""
        prefix = f"{folder}/" if folder else ""
        files |= {prefix + w for w in re.findall(r"\b([\w/]+)\.py\b", line)}  # frameworks/bridge.py too
        if folder == "runtime":
            words |= {prefix + w for w in re.findall(r"\b([a-z_]+)\b", line.split("):", 1)[-1])}
    modules = {
        (p.relative_to(package).with_suffix("").as_posix())
        for p in package.rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py")
    }
    assert modules <= files | words, modules - files - words
    assert files <= modules, files - modules  # a file the README names that is no longer there

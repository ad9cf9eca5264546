"""`mcpvend diff` and `lock --check` against a real server whose tools drift, and real lockfile pairs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from conftest import PY, REPO, SERVERS, mcpvend, node_server, write_config
from mcpvend.drift.compare import Finding, diff_documents, diff_tools, word_diff
from mcpvend.drift.report import COMMENT_LIMIT, render
from mcpvend.drift.section import Section

DRIFTING = {"command": PY, "args": [str(SERVERS / "drifting.py")], "env": {"DRIFT": "${DRIFT:-}"}}


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project locked against the drifting server's base tools, once per module (tests get a copy)."""
    root = tmp_path_factory.mktemp("drifting")
    write_config(root, {"drifting": DRIFTING})
    run = mcpvend("lock", cwd=root)
    assert run.code == 0, run.err
    return root


@pytest.fixture
def project(locked: Path, tmp_path: Path) -> Path:
    """A project of this test's own, locked against the drifting server's base tools."""
    return shutil.copytree(locked, tmp_path / "project")


@pytest.fixture(scope="module")
def generated_project(locked: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The locked project with its package generated, once per module (tests get a copy)."""
    root = shutil.copytree(locked, tmp_path_factory.mktemp("generated") / "project")
    run = mcpvend("generate", cwd=root)
    assert run.code == 0, run.err
    return root


def live(project: Path, drift: str, *args: str) -> tuple[int, list[dict[str, Any]]]:
    run = mcpvend("diff", "--live", "drifting", "--format", "json", *args, cwd=project, env={"DRIFT": drift})
    assert run.code in (0, 1), run.err
    report = json.loads(run.out)
    assert report["format"] == "mcpvend-report" and report["version"] == 1
    return run.code, report["sections"][0]["findings"]


# mutation -> the (kind, severity, tool, pointer) it must produce
EXPECTED = {
    "description": ("description-changed", "medium", "search", "/description"),
    "title": ("title-changed", "low", "search", "/title"),
    "readonly": ("annotation-changed", "high", "search", "/annotations/readOnlyHint"),
    "destructive": ("annotation-changed", "high", "delete_doc", "/annotations/destructiveHint"),
    "required": ("input-breaking", "high", "search", "/inputSchema/properties/scope"),
    "optional": ("input-compatible", "low", "search", "/inputSchema/properties/highlight"),
    "remove-prop": ("input-breaking", "high", "search", "/inputSchema/properties/legacy"),
    "narrow-type": ("input-breaking", "high", "search", "/inputSchema/properties/offset/type"),
    "widen-type": ("input-compatible", "low", "search", "/inputSchema/properties/limit/type"),
    "enum-removed": ("input-breaking", "high", "search", "/inputSchema/properties/mode/enum"),
    "enum-added": ("input-compatible", "low", "search", "/inputSchema/properties/mode/enum"),
    "const": ("input-breaking", "high", "search", "/inputSchema/properties/version/const"),
    "closed": ("input-breaking", "high", "search", "/inputSchema/additionalProperties"),
    "bounds-tight": ("input-breaking", "high", "search", "/inputSchema/properties/limit/maximum"),
    "bounds-loose": ("input-compatible", "low", "search", "/inputSchema/properties/limit/minimum"),
    "ref": ("input-breaking", "high", "search", "/inputSchema/properties/filters/properties/tags/items/type"),
    "anyof": ("input-breaking", "high", "search", "/inputSchema/properties/sort/anyOf/0/enum"),
    "optional-query": ("input-compatible", "low", "search", "/inputSchema/required"),
    "schema-desc": ("schema-description-changed", "low", "search", "/inputSchema/properties/query/description"),
    "default": ("schema-changed", "medium", "search", "/inputSchema/properties/mode/default"),
    "output-removed": ("output-breaking", "high", "search", "/outputSchema/properties/results"),
    "output-optional": ("output-breaking", "high", "search", "/outputSchema/required"),
    "output-added": ("output-compatible", "low", "search", "/outputSchema/properties/took"),
    "execution": ("field-changed", "low", "search", "/execution"),
    "meta": ("field-changed", "low", "search", "/_meta"),
    "unknown": ("field-changed", "low", "search", "/futureField"),
    "added": ("tool-added", "medium", "export", ""),
    "removed": ("tool-removed", "high", "delete_doc", ""),
    "instructions": ("server-changed", "medium", "", "/server/instructions"),
}


def test_the_drifting_server_lists_every_expected_mutation() -> None:
    listed = subprocess.run([PY, str(SERVERS / "drifting.py"), "--list"], capture_output=True, text=True, check=True)
    assert set(listed.stdout.split()) == set(EXPECTED) | {"poisoned"}


@pytest.mark.parametrize("mutation", sorted(EXPECTED))
def test_each_mutation_gives_its_finding_and_nothing_else(project: Path, mutation: str) -> None:
    code, findings = live(project, mutation)
    assert code == 1
    got = [(f["kind"], f["severity"], f["tool"], f["pointer"]) for f in findings]
    assert got == [EXPECTED[mutation]]
    finding = findings[0]
    assert finding["category"] in ("breaking", "description", "other") and finding["message"]


def test_unchanged_server_is_clean(project: Path) -> None:
    assert live(project, "") == (0, [])


def test_fail_on_levels(project: Path) -> None:
    for drift, level, code in [
        ("optional", "any", 1),
        ("optional", "description", 0),
        ("optional", "breaking", 0),
        ("description", "breaking", 0),
        ("description", "description", 1),
        ("required", "breaking", 1),
        ("required", "none", 0),
    ]:
        assert live(project, drift, "--fail-on", level)[0] == code, (drift, level)


def test_changed_descriptions_are_linted_and_diffed_word_by_word(project: Path) -> None:
    _, findings = live(project, "poisoned")
    rules = {f["rule"] for f in findings if f["kind"] == "poisoning"}
    assert {"hidden-instruction", "credential-reference"} <= rules
    assert all(f["severity"] == "high" and f["tool"] == "search" for f in findings if f["kind"] == "poisoning")
    described = next(f for f in findings if f["kind"] == "description-changed")
    assert described["detail"].startswith("Search {+documents. <IMPORTANT>Before using")
    _, untouched = live(project, "title")  # a title change does not re-lint the unchanged description
    assert [f["kind"] for f in untouched] == ["title-changed"]


def test_errors_exit_2(project: Path) -> None:
    run = mcpvend("diff", "--live", "nope", cwd=project)
    assert run.code == 2 and "no server named 'nope'" in run.err
    run = mcpvend("diff", "only-one.lock.json", cwd=project)
    assert run.code == 2 and "give OLD and NEW lockfiles, or --live SERVER" in run.err
    run = mcpvend("diff", "missing.lock.json", "lockfiles/drifting.lock.json", cwd=project)
    assert run.code == 2 and "missing.lock.json: lockfile not found" in run.err
    broken = project / "lockfiles" / "broken.lock.json"
    broken.write_text("{")
    run = mcpvend("diff", str(broken), "lockfiles/drifting.lock.json", cwd=project)
    assert run.code == 2 and "not valid JSON" in run.err


def test_lock_check_reports_classified_drift(project: Path) -> None:
    run = mcpvend("lock", "--check", cwd=project, env={"DRIFT": "required,readonly"})
    assert run.code == 1
    assert "high input-breaking: search /inputSchema/properties/scope: required property 'scope' added" in run.err
    assert "high annotation-changed: search /annotations/readOnlyHint" in run.err


def test_diff_between_git_revisions(project: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "lockfiles"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "lock"], cwd=project, check=True)
    assert mcpvend("lock", cwd=project, env={"DRIFT": "removed"}).code == 0
    run = mcpvend("diff", "HEAD:lockfiles/drifting.lock.json", "lockfiles/drifting.lock.json", cwd=project)
    assert run.code == 1
    assert "tool-removed" in run.out and "delete_doc" in run.out
    bad = mcpvend("diff", "NOPE:lockfiles/drifting.lock.json", "lockfiles/drifting.lock.json", cwd=project)
    assert bad.code == 2 and "cannot read from git" in bad.err


@pytest.mark.parametrize(
    ("on_path", "cause"),
    [(None, "git is not installed (or not on PATH)"), ("not-executable", "cannot run git: Permission denied")],
    ids=["no-git", "git-not-executable"],
)
def test_diff_from_git_without_a_usable_git_is_one_line(tmp_path: Path, on_path: str | None, cause: str) -> None:
    shutil.copytree(REPO / "lockfiles", tmp_path / "lockfiles")
    path = tmp_path / "bin"  # the only directory on PATH
    path.mkdir()
    if on_path == "not-executable":
        (path / "git").write_text("#!/bin/sh\n")
        (path / "git").chmod(0o644)
    spec = "HEAD:lockfiles/demo.lock.json"
    run = mcpvend("diff", spec, "lockfiles/demo.lock.json", cwd=tmp_path, env={"PATH": str(path)})
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: {spec}: cannot read from git: {cause}\n"


def test_real_lockfile_pair_everything_with_and_without_capabilities(tmp_path: Path) -> None:
    entry = str(node_server("server-everything"))
    write_config(tmp_path, {"everything": {"command": "node", "args": [entry, "stdio"], "capabilities": ["sampling", "elicitation", "roots"]}})  # fmt: skip
    assert mcpvend("lock", cwd=tmp_path).code == 0
    run = mcpvend(
        "diff", str(REPO / "lockfiles" / "everything.lock.json"), "lockfiles/everything.lock.json",
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    findings = json.loads(run.out)["sections"][0]["findings"]
    added = sorted(f["tool"] for f in findings if f["kind"] == "tool-added")
    assert run.code == 1 and len(added) == 4
    offered = [(f["new"], f["severity"]) for f in findings if f["kind"] == "capability-added"]
    assert sorted(offered) == [("elicitation", "medium"), ("roots", "medium"), ("sampling", "medium")]
    moved = [(f["pointer"], f["severity"], f["new"]) for f in findings if f["kind"] == "source-changed"]
    assert moved == [("/source/args/0", "high", entry)]  # the repository's lockfile names it relatively
    kinds = {"tool-added", "server-changed", "poisoning", "capability-added", "source-changed"}
    assert {f["kind"] for f in findings} <= kinds


def sample_findings() -> list[Finding]:
    old = json.loads((REPO / "lockfiles" / "demo.lock.json").read_text())
    new = json.loads(json.dumps(old))
    tool = new["tools"][0]["tool"]
    tool["name"] = "x|`<img src=x onerror=alert(1)>` [click](http://evil.test)"
    new["tools"][0]["tool"] = tool
    new["tools"][1]["tool"]["description"] = "Cancel it. ``` escape the fence ``` <b>bold</b>"
    return diff_documents(old, new, lint=False)


def test_markdown_report_snapshot_and_untrusted_text_is_inert(snapshot: SnapshotAssertion) -> None:
    markdown = render(
        [Section("HEAD:lockfiles/demo.lock.json", "lockfiles/demo.lock.json", sample_findings())], "markdown"
    )
    assert markdown == snapshot
    outside_code = re.sub(r"(`+)[^`].*?\1", "", re.sub(r"````diff.*?````", "", markdown, flags=re.S))
    assert "<img" not in outside_code and "<b>" not in outside_code and "](http" not in outside_code
    assert "````diff" in markdown  # a fence longer than the ``` inside the description
    assert "`` x\\|`<img src=x onerror=alert(1)>` [click](http://evil.test) ``" in markdown


def test_text_and_json_reports() -> None:
    findings = sample_findings()
    text = render([Section("a", "b", findings)], "text")
    assert text.startswith(f"a -> b: {len(findings)} findings")
    coloured = render([Section("a", "b", findings)], "text", colour=True)
    assert "\x1b[" in coloured and "\x1b[" not in text
    document = json.loads(render([Section("a", "b", findings)], "json"))
    assert document["summary"]["total"] == len(findings) == len(document["sections"][0]["findings"])
    assert set(document["sections"][0]["findings"][0]) == {
        "kind", "category", "severity", "tool", "pointer", "message", "old", "new", "detail", "rule",
    }  # fmt: skip


def test_word_diff_shows_invisible_characters() -> None:
    assert word_diff("read the file", "read the\u200b file now") == "read [-the-] {+the\\u200b+} file {+now+}"


def test_repo_lockfiles_copy_has_no_findings(tmp_path: Path) -> None:
    shutil.copy(REPO / "lockfiles" / "time.lock.json", tmp_path / "t.lock.json")
    run = mcpvend("diff", str(REPO / "lockfiles" / "time.lock.json"), "t.lock.json", cwd=tmp_path)
    assert run.code == 0 and "no findings" in run.out


PINNING_PROBE = """
import anyio, logging, sys
sys.path.insert(0, sys.argv[1])
logging.basicConfig(level=logging.WARNING, format="LOG %(name)s %(message)s", stream=sys.stdout)
from generated import drifting
from generated import DriftError

async def main(policy: str) -> None:
    for attempt in range(2):
        async with drifting.connect(pinning=policy) as tools:
            print((await tools.search(query="mcp")).results)
            try:
                print((await tools.delete_doc(id_="d1")).text)
            except DriftError as exc:
                print("DriftError", exc)

anyio.run(main, sys.argv[2])
"""


@pytest.mark.parametrize("policy", ["strict", "warn", "off"])
def test_runtime_pinning_refuses_warns_or_ignores_drifted_tools(
    generated_project: Path, tmp_path: Path, policy: str
) -> None:
    project = shutil.copytree(generated_project, tmp_path / "project")
    assert mcpvend("generate", "--check", cwd=project).code == 0  # the copy is the package generate makes
    run = subprocess.run(
        [PY, "-c", PINNING_PROBE, str(project), policy],
        cwd=project, capture_output=True, text=True, timeout=60,
        env={**__import__("os").environ, "DRIFT": "destructive"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    echoed = '{"arguments": {"id": "d1"}, "tool": "delete_doc"}'
    refused = "DriftError tool 'delete_doc' refused: its annotations changed since review (pinning is strict; review and re-lock)"
    warning = "LOG mcpvend.pinning server 'drifting': tool 'delete_doc' drifted: its annotations changed since review"
    one_connect = {
        "strict": ["['doc about mcp']", refused],
        "warn": ["['doc about mcp']", echoed],
        "off": ["['doc about mcp']", echoed],
    }[policy]
    expected = ([warning] if policy == "warn" else []) + one_connect + one_connect  # warned once, not per connect
    assert lines == expected


def test_lint_command_over_lockfiles(project: Path) -> None:
    clean = mcpvend("lint", cwd=REPO)
    assert clean.code == 0, clean.out + clean.err
    assert clean.out.count(": no findings") == 4
    assert mcpvend("lock", cwd=project, env={"DRIFT": "poisoned"}).code == 0
    run = mcpvend("lint", "drifting", "--format", "json", cwd=project)
    assert run.code == 1
    findings = json.loads(run.out)["sections"][0]["findings"]
    assert {f["rule"] for f in findings} >= {"hidden-instruction", "credential-reference"}
    assert all(f["kind"] == "poisoning" and f["tool"] == "search" and f["pointer"] == "/description" for f in findings)
    assert mcpvend("lint", "drifting", "--fail-on", "breaking", cwd=project).code == 0
    assert mcpvend("lint", "nope", cwd=project).code == 2


def test_check_and_live_diff_with_a_missing_or_corrupt_lockfile(project: Path) -> None:
    path = project / "lockfiles" / "drifting.lock.json"
    path.write_text("{")
    run = mcpvend("lock", "--check", cwd=project)  # refused before the server starts: an error, not drift
    assert run.code == 2 and "drifting.lock.json: not valid JSON" in run.err and run.err.count("\n") == 1
    assert path.read_text() == "{"
    path.unlink()
    run = mcpvend("diff", "--live", "drifting", cwd=project)
    assert run.code == 2 and "drifting.lock.json: lockfile not found (run `mcpvend lock`)" in run.err


def _tool(annotations: dict[str, Any] | None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    return tool if annotations is None else {**tool, "annotations": annotations}


@pytest.mark.parametrize(
    ("before", "after", "severity"),
    [
        (None, {"readOnlyHint": True}, "medium"),  # claims read-only: no approval asked any more
        ({"readOnlyHint": False}, {"readOnlyHint": True}, "medium"),
        (None, {"destructiveHint": False}, "medium"),  # claims not destructive: the same
        ({"readOnlyHint": True}, {"readOnlyHint": False}, "high"),  # loses read-only
        ({"readOnlyHint": True}, None, "high"),
        ({"destructiveHint": False}, {"destructiveHint": True}, "high"),  # becomes destructive
        ({"destructiveHint": False}, {}, "high"),
        (None, {"destructiveHint": True}, "low"),  # says what the default already says
        (None, {"readOnlyHint": False}, "low"),
        (None, {"idempotentHint": True}, "low"),
        ({"openWorldHint": True}, {"openWorldHint": False}, "low"),
    ],
)
def test_annotation_severity_follows_what_changes_for_approval(
    before: dict[str, Any] | None, after: dict[str, Any] | None, severity: str
) -> None:
    [finding] = diff_tools(_tool(before), _tool(after))
    assert (finding.kind, finding.severity) == ("annotation-changed", severity)


def _lockfile(**fields: Any) -> dict[str, Any]:
    base = json.loads((REPO / "lockfiles" / "demo.lock.json").read_text())
    return {**base, **fields}


def test_minor_source_fields_and_a_removed_capability_are_low_server_changes() -> None:
    old = _lockfile(clientCapabilities=["roots", "sampling"])
    new = _lockfile(clientCapabilities=["sampling", "elicitation"], source={**old["source"], "timeout": 90})
    found = [(f.kind, f.severity, f.pointer, f.message) for f in diff_documents(old, new)]
    assert found == [
        ("server-changed", "low", "/clientCapabilities", "client capability 'roots' removed"),
        ("capability-added", "medium", "/clientCapabilities/1",
         "client capability 'elicitation' added: the server can now ask the user questions"),
        ("server-changed", "low", "/source/timeout", "source.timeout added: 90"),
    ]  # fmt: skip
    text = render([Section("a", "b", diff_documents(old, new))], "text")
    assert text.splitlines()[:2] == [
        "a -> b: 3 findings (1 description, 2 other)",
        "  0 tools added, 0 changed, 0 removed; source: 1 field changed; 1 client capability added; highest: medium",
    ]


def test_one_finding_is_one_finding_and_lint_has_no_plan() -> None:
    old = _lockfile()
    new = json.loads(json.dumps(old))
    new["tools"][0]["tool"]["title"] = "Renamed"
    [finding] = diff_documents(old, new)
    text = render([Section("a", "b", [finding])], "text")
    assert text.startswith("a -> b: 1 finding (1 description)\n  0 tools added, 1 changed, 0 removed;")
    linted = render([Section("a", "lint", [finding])], "markdown", command="lint")
    assert "1 finding \\(1 description\\)" in linted and "tools added" not in linted
    assert "toolsAdded" not in json.loads(render([Section("a", "lint", [finding])], "json", command="lint"))["summary"]


def test_a_markdown_report_over_githubs_limit_keeps_the_plan_and_the_highest_rows() -> None:
    old = _lockfile()
    many = [{"name": f"tool_{i:04d}", "description": "Words.", "inputSchema": {"type": "object"}} for i in range(1000)]
    new = _lockfile(tools=[*old["tools"][1:], *({"tool": t} for t in many)])
    findings = diff_documents(old, new, lint=False)
    full = render([Section("a", "b", findings)], "markdown")
    assert len(full) <= COMMENT_LIMIT
    assert full.count("| 🟠 medium | tool-added |") < 1000  # cut: not every row fits
    assert "1000 tools added, 0 changed, 1 removed; source: 0 fields changed; highest: high" in full
    assert full.index("| 🔴 high | tool-removed |") < full.index("| 🟠 medium | tool-added |")  # highest first
    assert "<details>" not in full
    cut = 1000 - full.count("| 🟠 medium | tool-added |")
    assert f"(65,536 characters):** {cut} lower rows, the added tools' text" in full
    whole = render([Section("a", "b", [f for f in findings if f.tool == "tool_0000"])], "markdown")
    assert "Cut to fit" not in whole and "<details><summary>added tool <code>tool&#95;0000</code>" in whole

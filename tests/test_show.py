"""`mcpvend show`: the locked tools, their annotations, and each mode's tokens, as the runtime counts them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import REPO, mcpvend, write_config
from mcpvend.lock import lockfile
from mcpvend.runtime.core.budget import Budget
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.core.specs import full_spec, tokens
from mcpvend.runtime.toolset import ToolSet
from mcpvend.show import hints_in_words

PUBLISHED_FILESYSTEM = REPO / "tests" / "data" / "published" / "filesystem-2025.7.29.lock.json"


def test_show_prints_every_tool_with_annotations_and_tokens() -> None:
    run = mcpvend("show", "time", "demo", cwd=REPO)
    assert run.code == 0, run.err
    assert "time  (lockfiles/time.lock.json, protocol 2026-07-28)" in run.out
    rows = {line.split("│")[1].strip(): line for line in run.out.splitlines() if line.startswith("│")}
    assert set(rows) == {
        "time__convert_time",
        "time__get_current_time",
        "demo__airports_find-by-code_b73eb4",
        "demo__cancel_booking",
        "demo__convert_temperature",
        "demo__price_itinerary",
    }
    assert "destructive, idempotent" in rows["demo__cancel_booking"]
    assert "(all): 6 tools;" in run.out and "auto at a 128,000-token context: direct" in run.out


def test_show_json_matches_the_runtime_plan() -> None:
    run = mcpvend("show", "--format", "json", "--context-window", "3500", cwd=REPO)
    assert run.code == 0, run.err
    shown = json.loads(run.out)
    assert shown["budget"] == {"context_window": 3500, "ratio": 0.2, "tokens": 700}
    everything = lockfile.read(REPO / "lockfiles" / "everything.lock.json")
    ts = ToolSet(Catalog([Entry("everything", t) for t in everything.tools]), budget=Budget(context_window=3500))
    (view,) = [s for s in shown["servers"] if s["server"] == "everything"]
    assert view["direct_tokens"] == ts.plan().direct_tokens == sum(r["direct_tokens"] for r in view["tools"])
    assert view["compact_tokens"] == ts.plan().compact_tokens <= 700 < view["direct_tokens"]
    assert view["auto_mode"] == ts.mode == "compact"  # the measured listing (597 tokens) fits the 700 of the budget
    echo = next(r for r in view["tools"] if r["wire_name"] == "echo")
    assert echo["direct_tokens"] == tokens([full_spec(ts.catalog.by_provider["everything__echo"])])
    assert shown["all"]["direct_tokens"] == sum(s["direct_tokens"] for s in shown["servers"])


def test_show_names_the_tools_rejected_at_lock_with_their_reasons(tmp_path: Path) -> None:
    """server-filesystem 2025.7.29 as captured: 1 tool locked, 13 served without `"type": "object"`. A reviewer
    who reads only `show` must see that 13 tools the server has are not in the package, and why."""
    (tmp_path / "lockfiles").mkdir()
    shutil.copyfile(PUBLISHED_FILESYSTEM, tmp_path / "lockfiles" / "filesystem.lock.json")
    published = json.loads(PUBLISHED_FILESYSTEM.read_text(encoding="utf-8"))
    write_config(tmp_path, {"filesystem": {"command": "npx", "args": published["source"]["args"]}})
    text = mcpvend("show", cwd=tmp_path)
    assert text.code == 0, text.err
    assert "filesystem: 13 tools rejected at lock (not in the package)" in text.out
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in text.out.splitlines() if "│" in line}
    for entry in published["rejected"]:
        assert rows[entry["name"]] == entry["reason"] == "inputSchema.type: Field required"
    assert "filesystem: 1 tool, 13 rejected; tokens:" in text.out
    shown = json.loads(mcpvend("show", "--format", "json", cwd=tmp_path).out)
    (view,) = shown["servers"]
    assert len(view["tools"]) == 1 and view["rejected"] == published["rejected"]
    assert "rejected" not in shown["all"]


def test_annotations_in_words_with_defaults_marked() -> None:
    assert hints_in_words({}) == "(destructive), (open-world)"  # MCP's defaults, claimed by nobody
    assert hints_in_words({"annotations": {"readOnlyHint": True, "openWorldHint": False}}) == "read-only"
    assert (
        hints_in_words({"annotations": {"destructiveHint": False, "idempotentHint": True}})
        == "idempotent, (open-world)"
    )
    assert hints_in_words({"annotations": "garbage"}) == "(destructive), (open-world)"


def test_show_unknown_server_is_an_error() -> None:
    run = mcpvend("show", "nope", cwd=REPO)
    assert run.code == 2 and "no server named 'nope'" in run.err

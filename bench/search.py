"""How well tool search finds what a request needs (BM25F and the hybrid), and how fast.

Two query sets over the 527 tools of the 70-server LiveMCPBench corpus, pooled (key `server__tool`):
- tasks: the 95 annotated tasks, each a query (its `Question`). recall@k is the fraction of its
  annotated tool names that are in the pool found among the names of the top k hits (a name
  served by several servers matches any of them). Annotated names not in the pool are listed; a
  task left with none is excluded from the means and counted.
- paraphrases: 81 one-tool requests, phrased away from their tool's words, written for issue 18
  before any ranker was tuned (tests/data/paraphrases/). recall@k: is that tool (server and
  name) among the top k hits.
The hybrid ranks with the tools' vectors made once, int8 as `generate` vendors them (index build is
that embedding); its first query is timed in a fresh process that loads the model and those vectors,
as a generated package's first `search_tools` call does.
Intervals are 95% percentile bootstraps over the queries (2,000 resamples, seeded: every run prints
the same). The hybrid's alpha (the weight of BM25F) was chosen on the tasks only, by mean recall
over k (the sweep is printed); the paraphrases played no part in choosing it. The keyword-overlap baseline
counts the distinct query tokens a tool contains (same tokenizer, ties by key): what BM25 must beat.
Last, the model's weights (mcpvend-minilm's int8, and the upstream float32 where `make` downloaded the
upstream files) under each way of writing a tool as text and four alphas: how the defaults were chosen.

Usage: python bench/search.py [--runs N] [--queries] [--tasks]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from conftest import OverlapRanker, annotated_tasks, paraphrased_queries, search_documents  # noqa: E402
from mcpvend.runtime.core.search import FIELDS, BM25Ranker, Ranker, SearchDocument, stem, words  # noqa: E402
from mcpvend.runtime.semantic import hybrid as semantic  # noqa: E402
from mcpvend.runtime.semantic import vectors as files  # noqa: E402
from session_builds import MINILM_SOURCE, recipe  # noqa: E402

TASK_KS = (1, 5, 10, 20)
PARAPHRASE_KS = (1, 5, 10)
RESAMPLES = 2_000
SEED = 18
ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))
Task = tuple[str, str, list[str]]  # id, question, annotated tool names
Query = tuple[str, str]  # a paraphrased request, the key of its tool
TextOf = Callable[[SearchDocument], str]  # a tool written as the text the model embeds
BM25 = "BM25F, default field weights"
HYBRID = f"hybrid (alpha {semantic.DEFAULT_ALPHA}, the default)"
BASELINE = "keyword overlap (baseline)"


def task_recalls(ranker: Ranker, names: dict[str, str], tasks: Sequence[Task]) -> dict[int, list[float]]:
    """recall@k of each task, for each k in TASK_KS, over its annotated names that are in the pool."""
    pool = set(names.values())
    found: dict[int, list[float]] = {k: [] for k in TASK_KS}
    for _, question, annotated in tasks:
        relevant = [n for n in annotated if n in pool]
        hits = [names[h.key] for h in ranker.rank(question, max(TASK_KS))]
        for k in TASK_KS:
            found[k].append(sum(n in hits[:k] for n in relevant) / len(relevant))
    return found


def paraphrase_recalls(ranker: Ranker, queries: Sequence[Query]) -> dict[int, list[float]]:
    """1.0 for each query whose tool is in the top k, for each k in PARAPHRASE_KS."""
    ranks = [[h.key for h in ranker.rank(query, max(PARAPHRASE_KS))] for query, _ in queries]
    return {k: [float(key in hits[:k]) for hits, (_, key) in zip(ranks, queries, strict=True)] for k in PARAPHRASE_KS}


def interval(values: Sequence[float]) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean; the same resamples for every call (seeded)."""
    rng = random.Random(SEED)
    count = len(values)
    means = sorted(statistics.fmean(rng.choices(values, k=count)) for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def cell(values: Sequence[float]) -> str:
    low, high = interval(values)
    return f"{statistics.fmean(values):6.3f} [{low:.2f}, {high:.2f}]"


def table(title: str, ks: Sequence[int], rows: dict[str, dict[int, list[float]]]) -> None:
    print(f"\n{title}")
    print(f"   {'ranker':34}" + "".join(f"{'@' + str(k):>20}" for k in ks))
    for label, found in rows.items():
        print(f"   {label:34}" + "".join(f"{cell(found[k]):>20}" for k in ks))


def median_ms(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def query_ms(ranker: Ranker, queries: Sequence[str], runs: int) -> tuple[float, int]:
    times = []
    for _ in range(runs):
        for query in queries:
            start = time.perf_counter()
            ranker.rank(query, max(TASK_KS))
            times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times), len(times)


FIRST_QUERY = """
import json, sys, time
start = time.perf_counter()
sys.path.insert(0, "tests")
from conftest import search_documents
from mcpvend.runtime.semantic.hybrid import hybrid
docs = search_documents()
vendored = {tuple(key.split("\\0")): tuple(value) for key, value in json.load(open(sys.argv[1])).items()}
ranker = hybrid(vendored=vendored)(docs)  # toolset() in routed mode: the model loads, the index is built
ready = time.perf_counter()
ranker.rank(sys.argv[2], 20)  # the first search_tools call: one query
print(json.dumps([ready - start, time.perf_counter() - ready]))
"""


def vendor(docs: list[SearchDocument]) -> tuple[semantic.Vendored, float]:
    """The corpus's vectors as `generate` vendors them, and the seconds embedding them took."""
    start = time.perf_counter()
    texts = [semantic.embedded_text(d) for d in docs]
    rows = semantic.load_model().embed(texts)
    took = time.perf_counter() - start
    vectors = {
        (d.server, d.name): (files.text_digest(t), files.encode(r)) for d, t, r in zip(docs, texts, rows, strict=True)
    }
    return vectors, took


def first_query(vectors: semantic.Vendored, query: str, runs: int) -> tuple[float, float]:
    """Median seconds, in fresh processes, for toolset() (the model and the index from vendored vectors) and then
    for the first query."""
    with tempfile.TemporaryDirectory() as scratch:
        saved = Path(scratch) / "vectors.json"
        saved.write_text(json.dumps({"\0".join(key): value for key, value in vectors.items()}), encoding="utf-8")
        measured = [
            json.loads(subprocess.run(
                [sys.executable, "-c", FIRST_QUERY, str(saved), query], cwd=REPO, capture_output=True, text=True,
                check=True, env={**os.environ, "PYTHONPATH": str(REPO / "generator")},
            ).stdout)
            for _ in range(runs)
        ]  # fmt: skip
    return statistics.median(m[0] for m in measured), statistics.median(m[1] for m in measured)


def timings(docs: list[SearchDocument], queries: list[str], runs: int) -> semantic.Vendored:
    start = time.perf_counter()
    semantic.load_model()
    first_load = time.perf_counter() - start  # imports numpy, tokenizers, safetensors; reads the weights

    def cold_bm25() -> BM25Ranker:
        stem.cache_clear()  # a cold index: no word stemmed before
        return BM25Ranker(docs)

    bm25_ms = median_ms(cold_bm25, runs)
    vectors, embed_s = vendor(docs)
    ready_s, first_s = first_query(vectors, queries[0], runs)
    bm25_query, count = query_ms(BM25Ranker(docs), queries, runs)
    hybrid_query, _ = query_ms(semantic.hybrid(vendored=vectors)(docs), queries, runs)
    print(f"   build BM25 index (cold), ms           {bm25_ms:8.1f}   median of {runs}")
    print(f"   load the hybrid's model, first, ms    {1000 * first_load:8.1f}   numpy, tokenizers, the weights")
    print(f"   hybrid index: embed the tools, s      {embed_s:8.1f}   {len(docs)} tools, once (at generate)")
    print(f"   fresh process: toolset(), ms          {1000 * ready_s:8.1f}   median of {runs}: imports, model, index")
    print(f"   fresh process: first query, ms        {1000 * first_s:8.1f}   median of {runs}: search_tools' first")
    print(f"   one query (top {max(TASK_KS)}), BM25F, ms         {bm25_query:8.2f}   median of {count}")
    print(f"   one query (top {max(TASK_KS)}), hybrid, ms        {hybrid_query:8.2f}   median of {count} (warm)")
    return vectors


def alpha_sweep(
    docs: list[SearchDocument],
    vectors: semantic.Vendored,
    names: dict[str, str],
    tasks: list[Task],
    queries: list[Query],
) -> None:
    print("\nhybrid by alpha (the weight of BM25F): chosen on the tasks, by mean recall over k; paraphrases not used")
    heads = [f"tasks@{k}" for k in TASK_KS] + ["mean"] + [f"para@{k}" for k in PARAPHRASE_KS]
    print(f"   {'alpha':>5}" + "".join(f"{head:>10}" for head in heads))
    for alpha in ALPHAS:
        ranker = semantic.hybrid(alpha, vectors)(docs)
        found = task_recalls(ranker, names, tasks)
        para = paraphrase_recalls(ranker, queries)
        tasks_k = [statistics.fmean(found[k]) for k in TASK_KS]
        means = [*tasks_k, statistics.fmean(tasks_k)] + [statistics.fmean(para[k]) for k in PARAPHRASE_KS]
        row = "".join(f"{mean:10.3f}" for mean in means)
        print(f"   {alpha:5.1f}{row}{'   <- default' if alpha == semantic.DEFAULT_ALPHA else ''}")


def _text(chars: int = 600, server: bool = True, title: bool = False, parameters: str = "names") -> TextOf:
    """A way to write a tool as text for the model (the runtime's is `semantic.embedded_text`)."""

    def text(d: SearchDocument) -> str:
        head = f"{words(d.server)} {words(d.name)}." if server else f"{words(d.name)}."
        head += f" {d.title}." if title and d.title else ""
        if parameters == "descriptions":
            listed = "; ".join(f"{words(n)}: {about[:60]}" if about else words(n) for n, about in d.parameters)
        else:
            listed = ", ".join(words(n) for n, _ in d.parameters) if parameters == "names" else ""
        body = f"{head} {d.description[:chars]}" + (f" Parameters: {listed}." if listed else "")
        return " ".join(body.split())[: max(semantic.TOOL_CHARS, chars + 400)]

    return text


TEXTS: dict[str, TextOf] = {  # the runtime's text first; the others differ from it in one thing each
    "runtime's (600 chars)": semantic.embedded_text,
    "description 300 chars": _text(chars=300),
    "description 1000 chars": _text(chars=1000),
    "with the title": _text(title=True),
    "without the server": _text(server=False),
    "without parameters": _text(parameters=""),
    "parameter descriptions": _text(parameters="descriptions"),
}
TUNED_ALPHAS = (0.2, 0.25, 0.3, 0.35)


def weights_and_text(
    docs: list[SearchDocument], names: dict[str, str], tasks: list[Task], queries: list[Query]
) -> None:
    """The int8 weights (mcpvend-minilm) under each tool text and alpha; the upstream float32 weights under the
    runtime's text, where `make` downloaded them. Chosen on the tasks (mean over k), as the alpha sweep is."""
    models = {"int8": (semantic.load_model(), TEXTS)}
    if MINILM_SOURCE.is_file():
        with tempfile.TemporaryDirectory() as scratch:
            for name, data in recipe().read_source(MINILM_SOURCE).items():
                (Path(scratch) / name).write_bytes(data)
            models["float32"] = (semantic.load_model(Path(scratch)), {"runtime's (600 chars)": semantic.embedded_text})
    print("\nweights x tool text x alpha (vectors int8 as vendored; chosen on the tasks' mean over k)")
    print(f"   {'weights':8}{'tool text':26}{'alpha':>6}{'tasks@10':>10}{'mean':>8}{'para@5':>8}{'para@10':>9}")
    for weights, (model, texts) in models.items():
        for label, text_of in texts.items():
            rows = model.embed([text_of(d) for d in docs])
            vectors = {
                (d.server, d.name): (files.text_digest(semantic.embedded_text(d)), files.encode(row))
                for d, row in zip(docs, rows, strict=True)
            }  # keyed by the runtime's text, so the ranker uses them as they are
            for alpha in TUNED_ALPHAS:
                ranker = semantic.HybridRanker(docs, model, alpha=alpha, vendored=vectors)
                found, para = task_recalls(ranker, names, tasks), paraphrase_recalls(ranker, queries)
                mean = statistics.fmean(statistics.fmean(found[k]) for k in TASK_KS)
                figures = f"{statistics.fmean(found[10]):10.3f}{mean:8.3f}"
                figures += f"{statistics.fmean(para[5]):8.3f}{statistics.fmean(para[10]):9.3f}"
                chosen = "   <- default" if label == "runtime's (600 chars)" and alpha == semantic.DEFAULT_ALPHA else ""
                print(f"   {weights:8}{label:26}{alpha:6.2f}{figures}{chosen}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", action="store_true", help="print where each ranker puts each paraphrase's tool")
    parser.add_argument("--tasks", action="store_true", help="print recall@10 of every task")
    args = parser.parse_args()
    start = time.perf_counter()
    docs = search_documents()
    load_time = time.perf_counter() - start
    names = {d.key: d.name for d in docs}
    pool = set(names.values())
    all_tasks = annotated_tasks()
    missing = [(task_id, n) for task_id, _, annotated in all_tasks for n in annotated if n not in pool]
    scored = [t for t in all_tasks if any(n in pool for n in t[2])]
    queries = paraphrased_queries()
    assert all(key in names for _, key in queries), "a paraphrased query names a tool that is not in the corpus"

    print(f"mcpvend tool-search benchmark: LiveMCPBench corpus; python {sys.version.split()[0]}")
    print(f"   tools pooled                          {len(docs):8d}   ({len(pool)} distinct names)")
    print(f"   tasks                                 {len(all_tasks):8d}")
    print(f"   annotated names not in the pool       {len(missing):8d}   (listed below)")
    print(f"   tasks with no name in the pool        {len(all_tasks) - len(scored):8d}   (excluded from the means)")
    print(f"   tasks scored                          {len(scored):8d}")
    print(f"   paraphrased one-tool queries          {len(queries):8d}")
    print(f"   read corpus + from_tool, ms           {1000 * load_time:8.1f}")
    vectors = timings(docs, [q for _, q, _ in all_tasks] + [q for q, _ in queries], args.runs)

    rankers: dict[str, Ranker] = {
        BM25: BM25Ranker(docs),
        "BM25F, every field weight 1": BM25Ranker(docs, field_weights=dict.fromkeys(FIELDS, 1.0)),
        BASELINE: OverlapRanker(docs),
        HYBRID: semantic.hybrid(vendored=vectors)(docs),
        "hybrid, alpha 0 (embeddings only)": semantic.hybrid(0.0, vectors)(docs),
    }
    per_task = {label: task_recalls(ranker, names, scored) for label, ranker in rankers.items()}
    per_query = {label: paraphrase_recalls(ranker, queries) for label, ranker in rankers.items()}
    table(f"mean recall@k over the {len(scored)} scored tasks [95% interval]", TASK_KS, per_task)
    table(f"recall@k over the {len(queries)} paraphrased one-tool queries [95% interval]", PARAPHRASE_KS, per_query)
    alpha_sweep(docs, vectors, names, scored, queries)
    weights_and_text(docs, names, scored, queries)

    excluded = {t[0] for t in all_tasks} - {t[0] for t in scored}
    print("\nannotated names not in the pool (task id: name; * = the task has no name left and is excluded)")
    for task_id, name in missing:
        print(f"   {task_id}: {name}{'  *' if task_id in excluded else ''}")
    if args.queries:
        print("\nrank of each paraphrase's tool (0: not in the top 20): BM25F / hybrid, query -> tool")
        for query, key in queries:
            ranks = [[h.key for h in rankers[label].rank(query, 20)] for label in (BM25, HYBRID)]
            where = [keys.index(key) + 1 if key in keys else 0 for keys in ranks]
            print(f"   {where[0]:2d} / {where[1]:2d}  {query} -> {key}")
    if args.tasks:
        print("\nrecall@10 per task: BM25F / hybrid / baseline, question")
        for i, task in enumerate(scored):
            figures = " / ".join(f"{per_task[label][10][i]:4.2f}" for label in (BM25, HYBRID, BASELINE))
            print(f"   {figures}  {' '.join(task[1].split())[:100]}")


if __name__ == "__main__":
    main()

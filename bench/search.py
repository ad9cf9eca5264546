"""How well `mcpvend.runtime.search` finds the tools a task needs, and how fast.

The 527 tools of the 70-server LiveMCPBench corpus are pooled (key `server__tool`); each of
the 95 annotated tasks is a query (its `Question`) and its annotated tool names are the
relevant ones. recall@k is the fraction of a task's annotated names (those in the pool) among
the tool names of the top k hits; a name served by several servers matches any of them.
Annotated names that are not in the pool are listed; a task left with none is excluded from
the means and counted. The baseline scores a tool by the number of distinct query tokens it
contains (same tokenizer, ties by key), which is what BM25 has to beat.

Usage: python bench/search.py [--runs N] [--tasks]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from conftest import OverlapRanker, annotated_tasks, search_documents  # noqa: E402
from mcpvend.runtime.search import FIELDS, BM25Ranker, Ranker, stem  # noqa: E402

KS = (1, 5, 10, 20)


def recalls(ranker: Ranker, names: dict[str, str], task: tuple[str, str, list[str]]) -> dict[int, float]:
    """recall@k of one task for each k in KS, over its annotated names that are in the pool."""
    _, question, annotated = task
    relevant = [n for n in annotated if n in names.values()]
    found = [names[h.key] for h in ranker.rank(question, max(KS))]
    return {k: sum(n in found[:k] for n in relevant) / len(relevant) for k in KS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tasks", action="store_true", help="print recall@10 of every task")
    args = parser.parse_args()
    docs = search_documents()
    names = {d.key: d.name for d in docs}
    pool = set(names.values())
    all_tasks = annotated_tasks()
    missing = [(task_id, n) for task_id, _, annotated in all_tasks for n in annotated if n not in pool]
    scored = [t for t in all_tasks if any(n in pool for n in t[2])]
    rankers: dict[str, Ranker] = {
        "BM25F, default field weights": BM25Ranker(docs),
        "BM25F, every field weight 1": BM25Ranker(docs, field_weights=dict.fromkeys(FIELDS, 1.0)),
        "keyword overlap (baseline)": OverlapRanker(docs),
    }
    index_times, query_times = [], []
    for _ in range(args.runs):
        stem.cache_clear()  # a cold index: no word stemmed before
        start = time.perf_counter()
        bm25 = BM25Ranker(docs)
        index_times.append(time.perf_counter() - start)
        for _, question, _ in all_tasks:
            start = time.perf_counter()
            bm25.rank(question, max(KS))
            query_times.append(time.perf_counter() - start)
    start = time.perf_counter()
    search_documents()
    load_time = time.perf_counter() - start

    index_ms, query_ms = 1000 * statistics.median(index_times), 1000 * statistics.median(query_times)
    print(f"mcpvend tool-search benchmark: LiveMCPBench corpus; python {sys.version.split()[0]}")
    print(f"   tools pooled                          {len(docs):8d}   ({len(pool)} distinct names)")
    print(f"   tasks                                 {len(all_tasks):8d}")
    print(f"   annotated names not in the pool       {len(missing):8d}   (listed below)")
    print(f"   tasks with no name in the pool        {len(all_tasks) - len(scored):8d}   (excluded from the means)")
    print(f"   tasks scored                          {len(scored):8d}")
    print(f"   read corpus + from_tool, ms           {1000 * load_time:8.1f}")
    print(f"   build BM25 index (cold), ms           {index_ms:8.1f}   median of {args.runs}")
    print(f"   one query (top {max(KS)}), ms               {query_ms:8.2f}   median of {len(query_times)}")
    print("\nmean recall@k over the scored tasks")
    print(f"   {'ranker':32}" + "".join(f"{'@' + str(k):>8}" for k in KS))
    per_task: dict[str, list[dict[int, float]]] = {}
    for label, ranker in rankers.items():
        per_task[label] = [recalls(ranker, names, t) for t in scored]
        means = [statistics.fmean(r[k] for r in per_task[label]) for k in KS]
        print(f"   {label:32}" + "".join(f"{m:8.3f}" for m in means))
    excluded = {t[0] for t in all_tasks} - {t[0] for t in scored}
    print("\nannotated names not in the pool (task id: name; * = the task has no name left and is excluded)")
    for task_id, name in missing:
        print(f"   {task_id}: {name}{'  *' if task_id in excluded else ''}")
    if args.tasks:
        print("\nrecall@10 per task: BM25F / baseline, question")
        bm25_recalls, base_recalls = per_task["BM25F, default field weights"], per_task["keyword overlap (baseline)"]
        for task, bm25_r, base_r in zip(scored, bm25_recalls, base_recalls, strict=True):
            print(f"   {bm25_r[10]:4.2f} / {base_r[10]:4.2f}  {' '.join(task[1].split())[:100]}")


if __name__ == "__main__":
    main()

"""How many of the 527 corpus tools each strict converter makes valid under each provider's strict rules.

Converters: mcpvend's (`runtime/strict/rewrite.py`; a tool it cannot rewrite without losing calls is sent
non-strict, which counts as not strict here), openai's `openai.lib._pydantic` (what
`to_strict_json_schema` runs), the OpenAI Agents SDK's `ensure_strict_json_schema`, pydantic-ai's
`OpenAIJsonSchemaTransformer(strict=True)`, and Anthropic's `transform_schema`. Each output is
checked with `runtime/strict/rules.py` against each format's documented rules ("openai" and
"openai-responses" share one set); an exception is a refusal. "lenient" also passes outputs whose
only fault is an annotation keyword the rules do not list (`$schema`, `default`, `examples`, ...),
which some deployments accept and others refuse. A valid output can still accept
less than the reviewed schema: "narrower" counts the valid outputs for tools that mcpvend keeps
non-strict because no strict form takes all their calls (a map with any keys, a value of any
type, recursion). Also: the median time of each converter over the corpus.

Usage: python bench/strict.py [--runs N]
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from mcpvend.runtime.strict.rewrite import PROVIDERS, STRICT_FORMATS, NotStrict, strict_schema
from mcpvend.runtime.strict.rules import violations

ANNOTATION_FAULTS = ("'$schema'", "'default'", "'examples'", "'$comment'", "'$id'", "'deprecated'", "'readOnly'")
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "livemcpbench" / "tools.json"
Converter = Callable[[dict[str, Any]], dict[str, Any]]


def corpus() -> list[tuple[str, dict[str, Any]]]:
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))
    return [(server, tool) for e in entries for server, s in e["tools"].items() for tool in s["tools"]]


def converters() -> dict[str, tuple[Converter, str]]:
    """name -> (convert a schema, which format's rules it targets); the frameworks' only if installed."""
    found: dict[str, tuple[Converter, str]] = {
        "mcpvend (openai)": (lambda s: strict_schema(s, "openai"), "openai"),
        "mcpvend (anthropic)": (lambda s: strict_schema(s, "anthropic"), "anthropic"),
    }
    try:
        from openai.lib._pydantic import _ensure_strict_json_schema

        found[f"openai {metadata.version('openai')} lib"] = (
            lambda s: _ensure_strict_json_schema(s, path=(), root=s),
            "openai",
        )
    except ImportError:
        pass
    try:
        from agents.strict_schema import ensure_strict_json_schema

        found[f"openai-agents {metadata.version('openai-agents')}"] = (ensure_strict_json_schema, "openai")
    except ImportError:
        pass
    try:
        from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

        found[f"pydantic-ai {metadata.version('pydantic-ai-slim')} openai"] = (
            lambda s: OpenAIJsonSchemaTransformer(s, strict=True).walk(),
            "openai",
        )
    except ImportError:
        pass
    try:
        from anthropic import transform_schema

        found[f"anthropic {metadata.version('anthropic')} transform_schema"] = (transform_schema, "anthropic")
    except ImportError:
        pass
    return found


def convert(converter: Converter, schema: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return converter(copy.deepcopy(schema))
    except (NotStrict, Exception):  # noqa: BLE001 - every converter refuses in its own way
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    tools = corpus()
    schemas = [tool["inputSchema"] for _, tool in tools]
    exact = {
        p: {i for i, s in enumerate(schemas) if convert(converters()[f"mcpvend ({p})"][0], s)}
        for p in PROVIDERS.values()
    }
    print(f"strict specs benchmark: LiveMCPBench corpus, {len(tools)} tools; python {sys.version.split()[0]}")
    print("valid = strict and within the format's documented rules; narrower = valid, yet refuses calls the")
    print("reviewed schema takes; refused = the converter raised (mcpvend: sent non-strict)\n")
    header = f"{'converter':38} {'format':17} {'valid':>13} {'lenient':>13} {'narrower':>8} {'refused':>7} {'ms':>5}"
    print(header)
    print("-" * len(header))
    reasons: dict[str, collections.Counter[str]] = {}
    for name, (converter, target) in converters().items():
        outputs = [convert(converter, s) for s in schemas]
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            for schema in schemas:
                convert(converter, schema)
            times.append(time.perf_counter() - start)
        refused = sum(o is None for o in outputs)
        for fmt in STRICT_FORMATS:
            provider = PROVIDERS[fmt]
            problems = [violations(o, provider) if o is not None else ["refused"] for o in outputs]
            valid = [i for i, p in enumerate(problems) if not p]
            lenient = [i for i, p in enumerate(problems) if all(any(a in x for a in ANNOTATION_FAULTS) for x in p)]
            narrower = len([i for i in valid if i not in exact[provider]])
            mark = "" if PROVIDERS[fmt] == target else " *"
            ms = statistics.median(times) * 1000
            shares = (f"{len(v)} ({len(v) / len(schemas):.1%})" for v in (valid, lenient))
            print(
                f"{name:38} {fmt + mark:17} {next(shares):>13} {next(shares):>13} {narrower:>8} {refused:>7} {ms:>5.0f}"
            )
            if provider == target and fmt != "openai-responses":
                reasons[f"{name} / {fmt}"] = collections.Counter(
                    p[0].split(": ", 1)[-1][:70] for p in problems if p and p != ["refused"]
                )
    print("\n* rules of a provider the converter does not target\n")
    print("most common reasons a converter's own-provider output is invalid:")
    for name, counter in reasons.items():
        top = "; ".join(f"{count} x {why}" for why, count in counter.most_common(3)) or "none"
        print(f"  {name}: {top}")


if __name__ == "__main__":
    main()

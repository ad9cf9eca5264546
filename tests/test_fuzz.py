"""Random hostile tool lists through lock (a real replay server) → generate → import → call.

For each example (tests/strategies.py draws it): the replay server serves the tool list over
stdio; `lock` must lock exactly the sound tools and reject the broken and duplicated ones; the
generated package must compile; importing it in a watched process (tests/fuzz_probe.py) must
write nothing, start nothing, connect nowhere and print nothing; every wrapper's docstring must
be the served description; and every instance drawn with a schema must validate in the
generated input model and reach the server unchanged, through the typed wrapper and through
the ToolSet.

Profiles: `make test` runs FAST_EXAMPLES examples from fixed seeds (the same ones every run);
`make long` (MCPVEND_FUZZ=long) runs LONG_EXAMPLES from a new seed and writes its figures to
bench/fuzz-last-*.txt, which `make bench` copies into bench/RESULTS.md. The examples are split
into SHARDS files so that pytest-xdist runs them side by side. MCPVEND_FUZZ_EXAMPLES=N changes
the count, MCPVEND_FUZZ_SEED=S replays a long run.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import anyio
import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from conftest import PY, REPO, replay, write_config
from mcpvend.codegen.generate import generate
from mcpvend.config import load_config
from mcpvend.lock import lockfile
from mcpvend.lock.run import Outcome, lock
from strategies import ToolList, tool_lists

LONG = os.environ.get("MCPVEND_FUZZ") == "long"
# About 20 s of CPU on 2 cores (40 took 35 s, 80 took 60 s and reached one generator line more, now in
# test_generate's schema features); `make long` is where depth lives.
FAST_EXAMPLES = 24
LONG_EXAMPLES = 10_000
EXAMPLES = int(os.environ.get("MCPVEND_FUZZ_EXAMPLES", LONG_EXAMPLES if LONG else FAST_EXAMPLES))
SHARDS = 2  # tests/test_fuzz.py and tests/test_fuzz_shard2.py, each EXAMPLES / SHARDS examples
SERVER = "fuzz"


class Quiet:
    """A lock reporter that prints nothing: the outcome is checked instead."""

    def started(self, servers: list[str]) -> None:
        pass

    def finished(self, outcome: Outcome) -> None:
        pass


class ImportProbe:
    """tests/fuzz_probe.py, started once; its stdout and stderr go to a file that must stay empty."""

    def __init__(self, directory: Path) -> None:
        self.output = directory / "probe-output.txt"
        self._output = self.output.open("wb")
        read, write = os.pipe()
        self.proc = subprocess.Popen(
            [
                PY,
                "-B",
                str(REPO / "tests" / "fuzz_probe.py"),
                str(write),
            ],  # -B: Python's bytecode cache is no write of the package's
            stdin=subprocess.PIPE,
            stdout=self._output,
            stderr=self._output,
            pass_fds=(write,),
            text=True,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        os.close(write)
        self._answers: IO[str] = os.fdopen(read, encoding="utf-8")

    def check(self, root: Path, package: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"root": str(root), "package": package, "server": SERVER}) + "\n")
        self.proc.stdin.flush()
        line = self._answers.readline()
        assert line, f"the import probe died (exit {self.proc.poll()}): {self.printed()[-2000:]}"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def printed(self) -> str:
        return self.output.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self._answers.close()
        self._output.close()


@dataclass
class Tally:
    """What the run went through, so a profile's figures say what was covered."""

    examples: int = 0
    tools: int = 0
    rejected: int = 0
    instances: int = 0
    schemas: Counter[str] = field(default_factory=Counter)  # keyword -> how many schemas used it
    seconds: float = 0.0

    def count_keywords(self, schema: Any) -> None:
        seen: set[str] = set()

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                seen.update(k for k in node if k in KEYWORDS)
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)
            elif node is True:
                seen.add("true")

        walk(schema)
        self.schemas.update(seen)


KEYWORDS = (
    "$ref", "$defs", "anyOf", "oneOf", "allOf", "enum", "const", "additionalProperties", "patternProperties",
    "items", "prefixItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "minItems", "maxItems", "format", "default", "required",
)  # fmt: skip


def same(a: Any, b: Any) -> bool:
    """JSON equality that also tells 1 from 1.0 from true: the wire must carry what was given."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


class Example:
    """One drawn tool list, locked and generated in a directory of its own."""

    def __init__(self, root: Path, number: int, tool_list: ToolList) -> None:
        self.root = root / f"ex{number}"
        self.package = f"fuzzpkg{number}"
        self.tool_list = tool_list
        self.root.mkdir()
        tools_file = self.root / "tools.json"
        tools_file.write_text(json.dumps([t.tool for t in tool_list.tools]), encoding="utf-8")
        self.calls = self.root / "calls.jsonl"
        write_config(self.root, {SERVER: replay(tools_file, "--record", str(self.calls))})
        self.config = load_config(self.root / "mcpvend.toml", output=self.root / self.package)

    def lock(self) -> dict[str, Any]:
        [outcome] = lock(self.config, (), check=False, environ=os.environ, reporter=Quiet())
        assert outcome.status == "locked", outcome.detail
        assert {r.name for r in outcome.rejected} == self.tool_list.expected_rejected, outcome.rejected
        document: dict[str, Any] = json.loads(lockfile.path_for(self.config.lockfiles, SERVER).read_text())
        locked = {entry["tool"]["name"] for entry in document["tools"]}
        assert locked == self.tool_list.expected_locked
        return document

    def generate(self) -> None:
        report = generate(self.config, check=False)
        assert report.status == "generated"
        for path in sorted(self.config.output.rglob("*.py")):
            compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)

    def received(self) -> Any:
        """The arguments of the last tools/call, as the server read them off the wire."""
        last = self.calls.read_text(encoding="utf-8").splitlines()[-1]
        return json.loads(last)["arguments"]

    def manifest(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.config.output / SERVER / "manifest.json").read_text())
        return data

    def import_package(self) -> ModuleType:
        sys.path.insert(0, str(self.root))
        importlib.invalidate_caches()  # the package directory is new: finders cache directory listings
        return importlib.import_module(self.package)

    def close(self) -> None:
        if str(self.root) in sys.path:
            sys.path.remove(str(self.root))
        for name in [m for m in sys.modules if m == self.package or m.startswith(f"{self.package}.")]:
            del sys.modules[name]
        shutil.rmtree(self.root, ignore_errors=True)


async def send_every_instance(pkg: ModuleType, example: Example, tally: Tally) -> None:
    """Each instance: valid under its schema, accepted by the input model, received as given."""
    server = importlib.import_module(f"{example.package}.{SERVER}")
    runtime = importlib.import_module(f"{example.package}._runtime.wrappers.tools")
    tool_error = runtime.ToolError
    by_name = {entry["tool"]["name"]: entry for entry in example.manifest()["tools"]}
    sound = [t for t in example.tool_list.tools if not t.reject and t.name in example.tool_list.expected_locked]
    async with server.connect() as tools, pkg.toolset([SERVER], mode="direct") as toolset:
        provider = {entry.name: entry.provider for entry in toolset.catalog.entries}
        for fuzz_tool in sound:
            entry = by_name[fuzz_tool.name]
            model = getattr(server.models, entry["input"])
            method = getattr(tools, entry["method"])
            for instance in fuzz_tool.instances:
                tally.instances += 1
                jsonschema.Draft202012Validator(fuzz_tool.tool["inputSchema"]).validate(instance)
                validated = runtime.from_wire(model, instance)  # as the wrappers read JSON
                with contextlib.suppress(tool_error):  # with an outputSchema, the replay server's echo is no output
                    await method(validated)
                sent = example.received()
                assert json_equal(sent, instance), f"the wrapper sent {sent!r} for {instance!r}"
                result = await toolset.call(provider[fuzz_tool.name], instance)
                assert "invalid arguments" not in result.text, result.text
                sent = example.received()
                assert same(sent, instance), f"the ToolSet sent {sent!r} for {instance!r}"


def json_equal(a: Any, b: Any) -> bool:
    """Equality for the typed wrapper, which sends its model's dump: `same`, except that a number may
    come back as the float its `number` field holds (exact for integers up to 2**53, nearest above)."""
    if (
        isinstance(a, int | float)
        and isinstance(b, int | float)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return same(a, b)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ImportProbe]]:
    root = tmp_path_factory.mktemp("fuzz")
    probe = ImportProbe(root)
    try:
        yield root, probe
    finally:
        probe.close()


def record(tally: Tally, shard: int, chosen: int) -> None:
    """A long run's figures, one file per shard, for bench/RESULTS.md."""
    used = ", ".join(f"{k} {tally.schemas[k]}" for k in KEYWORDS)
    lines = [
        f"shard {shard} of {SHARDS}, {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; machine: "
        f"{os.cpu_count()} CPUs, {platform.system()} {platform.machine()}; Python {platform.python_version()}",
        f"examples: {tally.examples} tool lists (seed {chosen}), {tally.tools} tools locked, {tally.rejected}"
        f" rejected as built to be, {tally.instances} instances sent through the wrapper and the ToolSet",
        f"schemas using each keyword: {used}",
        f"wall time: {tally.seconds:.0f} s ({tally.seconds / max(tally.examples, 1) * 1000:.0f} ms per example)",
        "result: passed (every output compiled, imported without side effects, kept every docstring and"
        " sent every instance unchanged)",
    ]
    (REPO / "bench" / f"fuzz-last-{shard}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_shard(shard: int, root: Path, probe: ImportProbe) -> None:
    """One shard's share of the examples: fixed seeds in `make test`, a new one per long run."""
    tally = Tally()
    examples = -(-EXAMPLES // SHARDS)
    profile = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
        # MCPVEND_FUZZ_SHRINK=0 reports failures unshrunk: faster when hunting several bugs at once
        phases=list(Phase) if os.environ.get("MCPVEND_FUZZ_SHRINK") != "0" else [Phase.explicit, Phase.generate],
    )

    @profile
    @given(tool_lists())
    def one(tool_list: ToolList) -> None:
        tally.examples += 1
        example = Example(root, tally.examples, tool_list)
        try:
            document = example.lock()
            tally.tools += len(document["tools"])
            tally.rejected += len(tool_list.expected_rejected)
            for entry in document["tools"]:
                tally.count_keywords(entry["tool"]["inputSchema"])
            example.generate()
            imported = probe.check(example.root, example.package)
            assert "error" not in imported, imported
            assert imported["events"] == [], imported["events"]
            assert probe.printed() == "", probe.printed()
            for entry in example.manifest()["tools"]:
                assert imported["docs"][entry["method"]] == entry["tool"].get("description"), entry["method"]
            anyio.run(send_every_instance, example.import_package(), example, tally)
        finally:
            example.close()

    chosen = shard  # the same examples every `make test`
    if LONG:  # a new seed each run, printed and recorded so that a failure can be replayed
        chosen = int(os.environ.get("MCPVEND_FUZZ_SEED") or random.randrange(2**32)) + shard
        print(f"\nfuzz shard {shard}: seed {chosen} (MCPVEND_FUZZ_SEED={chosen - shard} replays this shard)")
    start = time.monotonic()
    seed(chosen)(one)()
    tally.seconds = time.monotonic() - start
    assert tally.examples >= examples
    print(f"\nfuzz shard {shard}: {tally.examples} examples, {tally.tools} tools, {tally.instances} instances")
    if LONG:
        record(tally, shard, chosen)


@pytest.mark.timeout(0)
def test_fuzzed_tool_lists_lock_generate_import_and_call(workspace: tuple[Path, ImportProbe]) -> None:
    """Shard 1; tests/test_fuzz_shard2.py runs shard 2 (a file of its own: pytest-xdist gives it a worker)."""
    run_shard(1, *workspace)

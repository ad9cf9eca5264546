"""Tool vectors vendored at generate (`[search] semantic = true`): byte-stable, reused, checked, and used.

Real runs: the demo server locked, the CLI generating with the real model (in a child process where
the process matters: its thread count, a model that is refused), the package imported in a fresh
interpreter. A copy of the installed mcpvend-minilm with one byte of its weights flipped, found first on
the path, stands for a model that was tampered with (or a broken install): it must never be used. The
project is locked once per module, and generated once, and each test works on a copy of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PY, SERVERS, mcpvend, write_config
from mcpvend.runtime.semantic import hybrid as semantic
from mcpvend.runtime.semantic import minilm
from mcpvend.runtime.semantic import vectors as files

VECTORS = Path("generated") / "demo" / files.FILE
AIRPORT = "Look up an airport by its three-letter IATA code."


SEMANTIC = "[search]\nsemantic = true\n\n"


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with `[search] semantic = true` whose demo server (a copy: a test changes a tool of it,
    named relatively so that a copy of the project runs its own) is locked."""
    root = tmp_path_factory.mktemp("locked") / "project"
    root.mkdir()
    shutil.copy(SERVERS / "demo.py", root / "demo.py")
    config = write_config(root, {"demo": {"command": PY, "args": ["demo.py"]}})
    config.write_text(SEMANTIC + config.read_text(encoding="utf-8"), encoding="utf-8")
    run = mcpvend("lock", cwd=root)
    assert run.code == 0, run.err
    return root


@pytest.fixture(scope="module")
def generated(locked: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The locked project generated, its vectors made by the real model."""
    root = shutil.copytree(locked, tmp_path_factory.mktemp("generated") / "project")
    run = mcpvend("generate", cwd=root)
    assert run.code == 0, run.err
    return root


def project(template: Path, root: Path, *, semantic_search: bool = True) -> Path:
    """A copy of `template` in `root`; without `[search]` when `semantic_search` is false."""
    shutil.copytree(template, root)
    if not semantic_search:
        config = root / "mcpvend.toml"
        config.write_text(config.read_text(encoding="utf-8").removeprefix(SEMANTIC), encoding="utf-8")
        assert "[search]" not in config.read_text(encoding="utf-8")
    return root


def changed_model(root: Path) -> dict[str, str]:
    """An environment in which mcpvend-minilm (a copy found first on the path) has one byte of its weights flipped."""
    copy = root / "changed-model" / minilm.PACKAGE
    if not copy.exists():
        installed = minilm.source().directory
        assert installed is not None, "mcpvend-minilm is not installed: run `make test`"
        shutil.copytree(installed, copy, ignore=shutil.ignore_patterns("__pycache__"))
        weights = bytearray((copy / minilm.WEIGHTS).read_bytes())
        weights[-1] ^= 0x20  # the last float of the last tensor: the file still parses
        (copy / minilm.WEIGHTS).write_bytes(weights)
    return {"PYTHONPATH": os.pathsep.join([str(copy.parent), os.environ.get("PYTHONPATH", "")])}


def in_package(root: Path, script: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`script` in a fresh interpreter that imports the generated package of `root`."""
    environ = {**os.environ, **(env or {})}
    environ["PYTHONPATH"] = os.pathsep.join([str(root), environ.get("PYTHONPATH", "")])
    return subprocess.run([PY, "-c", script], cwd=root, env=environ, capture_output=True, text=True, timeout=120)


def test_generate_vendors_one_line_per_tool_byte_identical_with_one_and_two_threads(
    locked: Path, tmp_path: Path
) -> None:
    outputs = []
    for threads in ("1", "2"):
        root = project(locked, tmp_path / f"threads-{threads}")
        env = {name: threads for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        run = mcpvend("generate", cwd=root, env=env, process=True)  # BLAS reads its thread count at start
        assert run.code == 0, run.err
        outputs.append((root / VECTORS).read_bytes())
    assert outputs[0] == outputs[1]
    made = files.Vectors.parse(outputs[0].decode(), "vectors.json")
    tools = json.loads((tmp_path / "threads-1" / "lockfiles" / "demo.lock.json").read_text())["tools"]
    assert made.model == semantic.MODEL and sorted(made.tools) == sorted(t["tool"]["name"] for t in tools)
    assert len(outputs[0].decode().splitlines()) == len(tools) + 6  # one line per tool: a one-tool change is one line


def test_check_on_an_unchanged_tree_needs_no_model_and_a_changed_tool_is_embedded_alone(
    generated: Path, tmp_path: Path
) -> None:
    root = project(generated, tmp_path / "project")
    before = (root / VECTORS).read_text().splitlines()
    changed = changed_model(tmp_path)
    check = mcpvend("generate", "--check", cwd=root, env=changed, process=True)
    assert (check.code, check.err.strip()) == (0, "up to date: generated (1 server, 4 tools)"), check.err

    server = root / "demo.py"
    server.write_text(server.read_text().replace(AIRPORT, AIRPORT + " Changed."))
    assert mcpvend("lock", cwd=root).code == 0
    refused = mcpvend("generate", cwd=root, env=changed, process=True)  # a tool needs a vector: the model is refused
    assert refused.code != 0 and "server 'demo': 1 tool(s) need search vectors" in refused.err
    weights = tmp_path / "changed-model" / minilm.PACKAGE / minilm.WEIGHTS
    assert f"{weights} has sha256 " in refused.err and "is not used" in refused.err, refused.err
    assert "Traceback" not in refused.err and (root / VECTORS).read_text().splitlines() == before  # nothing written
    assert mcpvend("generate", cwd=root).code == 0
    after = (root / VECTORS).read_text().splitlines()
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert len(changed) == 1 and '"airports.find-by-code"' in after[changed[0]]


def test_full_replaces_a_tampered_vector_and_keeps_the_others_byte_for_byte(generated: Path, tmp_path: Path) -> None:
    root = project(generated, tmp_path / "project")
    made = files.Vectors.parse((root / VECTORS).read_text(), "vectors.json")
    name, (digest, vector) = sorted(made.tools.items())[0]
    flipped = files.encode(-files.decode(vector))  # points the other way: the search would rank it wrongly
    tampered = files.Vectors(made.model, {**made.tools, name: (digest, flipped)})
    (root / VECTORS).write_text(tampered.render())
    assert mcpvend("generate", "--check", "--full", cwd=root).code != 0  # stale: the vector is not the model's
    assert mcpvend("generate", "--full", cwd=root).code == 0
    assert files.Vectors.parse((root / VECTORS).read_text(), "vectors.json") == made


def test_the_default_search_is_semantic_with_vendored_vectors_and_bm25f_without_the_model(
    generated: Path, tmp_path: Path
) -> None:
    root = project(generated, tmp_path / "project")
    script = (
        "import warnings, generated\n"
        "warnings.simplefilter('always')\n"
        "ts = generated.toolset(mode='routed')\n"
        "print(type(ts.catalog._ranker).__name__)\n"
        "print(*[e.provider for e in ts.catalog.search('how warm is it in kelvin', 1)])\n"
    )
    ranked = in_package(root, script)
    assert ranked.returncode == 0, ranked.stderr
    assert ranked.stdout.split() == ["HybridRanker", "demo__convert_temperature"] and ranked.stderr == ""
    fallback = in_package(root, script, changed_model(tmp_path))
    assert fallback.returncode == 0, fallback.stderr
    assert fallback.stdout.split()[0] == "BM25Ranker"
    warned = [line for line in fallback.stderr.splitlines() if "tool search ranks with BM25F" in line]
    weights = tmp_path / "changed-model" / minilm.PACKAGE / minilm.WEIGHTS
    assert len(warned) == 1 and f"{weights} has sha256 " in warned[0] and "is not used" in warned[0], warned


def test_a_routed_toolset_builds_its_index_so_the_first_search_embeds_only_the_query(
    generated: Path, tmp_path: Path
) -> None:
    root = project(generated, tmp_path / "project")
    script = (
        "import generated\n"
        "from generated._runtime.semantic.hybrid import load_model\n"
        "model = load_model()\n"
        "embed, embedded = model.embed, []\n"
        "model.embed = lambda texts: embedded.append(len(texts)) or embed(texts)\n"
        "for mode, ranker in (('routed', None), ('routed', 'hybrid'), ('direct', None)):\n"
        "    ts = generated.toolset(mode=mode, search=generated.SearchOptions(ranker=ranker))\n"
        "    built = '_ranker' in vars(ts.catalog)\n"
        "    embedded.clear()\n"
        "    ts.catalog.search('how warm is it in kelvin', 1)\n"
        "    print(mode, ranker, built, embedded)\n"
    )
    shown = in_package(root, script)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [
        "routed None True [1]",
        "routed hybrid True [1]",
        "direct None False [1]",  # direct mode offers every tool: no search is expected, none is prepared
    ]


def test_vectors_of_another_model_are_not_used_and_say_regenerate(generated: Path, tmp_path: Path) -> None:
    root = project(generated, tmp_path / "project")
    made = files.Vectors.parse((root / VECTORS).read_text(), "vectors.json")
    (root / VECTORS).write_text(files.Vectors("another-model 1.0", made.tools).render())
    shown = in_package(root, "import generated\nprint(generated.toolset(mode='routed').catalog.search('kelvin', 1))")
    assert shown.returncode == 0, shown.stderr
    assert "was made with another-model 1.0" in shown.stderr and "run `mcpvend generate`" in shown.stderr
    assert "convert_temperature" in shown.stdout  # still found: the tools were embedded on the spot


def test_a_package_without_vectors_keeps_bm25f_and_no_model_is_loaded(locked: Path, tmp_path: Path) -> None:
    root = project(locked, tmp_path / "project", semantic_search=False)
    assert mcpvend("generate", cwd=root).code == 0
    assert not (root / VECTORS).exists()
    script = "import sys, generated\nts = generated.toolset(mode='routed')\nprint(type(ts.catalog._ranker).__name__)"
    shown = in_package(root, script + "\nprint('numpy' in sys.modules)")  # the model's libraries: not loaded
    assert shown.stdout.split() == ["BM25Ranker", "False"], shown.stderr


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("[search]\nsemantic = 'yes'\n", "[search] semantic must be true or false, not 'yes'"),
        ("[search]\nmodels = 'x'\n", "[search]: unknown key 'models' (expected 'semantic' or 'model')"),
        ("[search]\nmodel = 'x'\n", "[search] model is the model of semantic search: set semantic = true with it"),
        ("[search]\nsemantic = true\nmodel = 5\n", "[search] model must be a directory's path, not 5"),
        ("search = 1\n", "'search' must be a table"),
    ],
)
def test_a_bad_search_table_is_one_line_naming_the_key(locked: Path, tmp_path: Path, table: str, message: str) -> None:
    root = project(locked, tmp_path / "project", semantic_search=False)
    (root / "mcpvend.toml").write_text(table + (root / "mcpvend.toml").read_text())
    run = mcpvend("generate", cwd=root)
    assert run.code == 2 and message in run.err and "Traceback" not in run.err, run.err


def test_a_corrupt_vectors_file_is_named_at_toolset_and_generate_writes_it_anew(
    generated: Path, tmp_path: Path
) -> None:
    root = project(generated, tmp_path / "project")
    made = (root / VECTORS).read_text()
    (root / VECTORS).write_text('{"format": 1, "model": "x", "tools": {"a": 5}}\n')
    shown = in_package(root, "import generated\ngenerated.toolset(mode='routed')")
    assert shown.returncode != 0
    assert "generated/demo/vectors.json is not a vectors file mcpvend wrote" in shown.stderr
    assert shown.stderr.rstrip().endswith("run `mcpvend generate`")
    assert mcpvend("generate", "--full", cwd=root).code == 0  # the file on disk is not trusted, nor needed
    assert (root / VECTORS).read_text() == made

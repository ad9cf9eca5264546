"""The documentation site (docs/, mkdocs.yml) builds offline with no broken link, and nothing public goes undocumented.

`mkdocs build --strict` runs here, as in `make docs`; the CLI reference and the Python API page are
written from the code at build time (docs/hooks.py). Every code block of every page is run or checked:
tests/test_readme.py runs the commands, Python blocks, configs and tables; tests/test_tutorial.py runs
the tutorial in order; `test_every_code_block_has_a_checker` below fails on a block neither would see.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest
import yaml

from conftest import GOOD_TOOLS, PY, REPO, SERVERS, corpus_servers, lock_documents, mcpvend, write_config, write_tools
from mcpvend.cli import main as cli
from mcpvend.config import load_config
from mcpvend.runtime import PUBLIC

DOCS = REPO / "docs"
SCHEMA = DOCS / "reference" / "lockfile.schema.json"
# Characters of a code line shown whole at 1280 px: Material's code box is 656 px wide there,
# in a 13.6 px monospace font of 0.6 em a character (DejaVu Sans Mono, Menlo, SF Mono).
CODE_WIDTH = 80
GENERATED_PAGES = {"reference/cli.md": "<!-- mcpvend:cli -->", "reference/api.md": "<!-- mcpvend:api -->"}


def pages() -> dict[str, str]:
    """Every page's Markdown source, by its path under docs/."""
    return {p.relative_to(DOCS).as_posix(): p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md"))}


def written_text() -> str:
    """What people wrote: every page and the README (the generated parts are only markers in the source)."""
    return "\n".join([*pages().values(), (REPO / "README.md").read_text(encoding="utf-8")])


def blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block: the info string holds the language and any title."""
    return re.findall(r"^```([^\n]*)\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


# --- the build ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("site")
    started = time.monotonic()
    run = subprocess.run(
        [PY, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "WARNING" not in run.stderr, run.stderr
    print(f"mkdocs build --strict: {time.monotonic() - started:.1f} s", file=sys.stderr)
    yield out


def html_text(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def test_every_page_is_in_the_nav_and_built(site: Path) -> None:
    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]

    def leaves(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [leaf for item in node for leaf in leaves(item)]
        return [leaf for value in node.values() for leaf in leaves(value)]

    assert sorted(leaves(nav)) == sorted(pages())
    for page in pages():
        built = site / ("index.html" if page == "index.md" else page.removesuffix(".md") + "/index.html")
        assert built.is_file(), page


def test_the_build_is_offline() -> None:
    """No font download, no social cards, no privacy plugin: CI reaches package registries only."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["font"] is False
    plugins = [p if isinstance(p, str) else next(iter(p)) for p in config["plugins"]]
    assert not {"social", "privacy", "material/social", "material/privacy"} & set(plugins), plugins


def test_the_built_site_loads_nothing_from_elsewhere(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"""(?:src|href)=["']https?://(?!github\.com/)""", text.split("</head>")[0]), page


def test_the_cli_reference_has_every_command_and_option(site: Path) -> None:
    text = html_text(site / "reference" / "cli" / "index.html")
    for path, command in cli_commands():
        assert " ".join(path) in text, path
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in param.opts:
                    assert opt in text, (path, opt)


def test_the_cli_reference_code_lines_show_whole_at_1280_px(site: Path) -> None:
    """Material scrolls a longer line sideways, which hides its end (the comment) until scrolled."""
    page = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    code = [html.unescape(re.sub(r"<[^>]+>", "", pre)) for pre in re.findall(r"<pre\b.*?</pre>", page, re.DOTALL)]
    lines = [line for block in code for line in block.splitlines()]
    assert len(code) >= len(cli_commands()) and len(lines) > 30  # "At a glance" and every usage line
    assert [line for line in lines if len(line) > CODE_WIDTH] == []


def test_the_api_page_has_every_public_name(site: Path) -> None:
    text = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name, module in PUBLIC.items():
        assert f'id="mcpvend.runtime.{module}.{name}"' in text, name


def test_the_benchmark_results_are_included_as_written(site: Path) -> None:
    text = " ".join(html_text(site / "explanation" / "results" / "index.html").split())
    results = (REPO / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    headings = [" ".join(h.replace("`", " ").split()) for h in re.findall(r"^## (.+)$", results, flags=re.MULTILINE)]
    assert headings and [h for h in headings if h not in text] == []


# --- nothing public goes undocumented -------------------------------------------------------------


def cli_commands() -> list[tuple[tuple[str, ...], click.Command]]:
    found: list[tuple[tuple[str, ...], click.Command]] = [(("mcpvend",), cli)]

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            found.append(((*path, name), command))
            if isinstance(command, click.Group):
                walk(command, (*path, name))

    walk(cli, ("mcpvend",))
    return found


def test_every_cli_option_is_documented() -> None:
    """Every option of every command has a help text or choices (the reference prints them) and a page uses it."""
    written = written_text()
    missing: list[str] = []
    for path, command in cli_commands():
        if len(path) > 1 and not re.search(rf"`{re.escape(' '.join(path))}\b", written):
            missing.append(" ".join(path))
        for param in command.params:
            if not isinstance(param, click.Option):
                continue
            assert param.help or isinstance(param.type, click.Choice), (path, param.opts)
            if not any(re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", written) for opt in param.opts):
                missing.append(f"{' '.join(path)} {param.opts[-1]}")
    assert missing == []


def public_names() -> set[str]:
    """The generated package's root `__all__` (the golden record's), the runtime's PUBLIC and a server's own names."""
    tree = ast.parse((REPO / "generated" / "__init__.py").read_text(encoding="utf-8"))
    (exported,) = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    ]
    subpackage = ast.parse((REPO / "generated" / "demo" / "__init__.py").read_text(encoding="utf-8"))
    (own,) = [
        ast.literal_eval(node.value)
        for node in subpackage.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    ]
    return set(exported) | set(PUBLIC) | set(own)


def test_every_public_name_is_documented() -> None:
    """Each name a user imports is named in backticks on a page people wrote, not only in the API page."""
    written = "\n".join(text for page, text in pages().items() if page != "reference/api.md")
    spans = " ".join(re.findall(r"`([^`\n]+)`", written))
    missing = sorted(name for name in public_names() if not re.search(rf"(?<![\w.]){re.escape(name)}\b", spans))
    assert missing == []


def test_every_generated_page_has_its_marker() -> None:
    for page, marker in GENERATED_PAGES.items():
        assert marker in pages()[page], page


# --- the lockfile schema --------------------------------------------------------------------------


def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(document: Any) -> list[str]:
    return [f"{e.json_path}: {e.message[:200]}" for e in validator().iter_errors(document)]


def test_the_repos_lockfiles_match_the_published_schema() -> None:
    paths = sorted((REPO / "lockfiles").glob("*.lock.json"))
    assert paths
    for path in paths:
        assert problems(json.loads(path.read_text(encoding="utf-8"))) == [], path.name


def test_lockfiles_written_here_match_the_published_schema(tmp_path: Path) -> None:
    """Real servers locked with env values (format 3), a rejected tool and a longer timeout; and the corpus."""
    bad = [{"name": "broken", "description": "No object schema.", "inputSchema": {"type": "string"}}]
    tools = write_tools(tmp_path / "tools.json", [*GOOD_TOOLS, *bad])
    servers: dict[str, dict[str, Any]] = {
        "trips": {"command": PY, "args": [str(SERVERS / "demo.py")], "env": {"TZ": "UTC", "LEVEL": "${LEVEL:-info}"}},
        "replayed": {"command": PY, "args": [str(SERVERS / "replay.py"), str(tools)], "timeout": 45},
    }
    write_config(tmp_path, servers)
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    written = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in (tmp_path / "lockfiles").glob("*.lock.json")}
    assert written["trips.lock.json"]["lockfileVersion"] == 3 and written["replayed.lock.json"]["rejected"]
    assert written["replayed.lock.json"]["source"]["timeout"] == 45
    lock_documents(tmp_path / "corpus", corpus_servers())
    written |= {p.name: json.loads(p.read_text()) for p in (tmp_path / "corpus" / "lockfiles").glob("*.lock.json")}
    assert len(written) > 60
    for name, document in written.items():
        assert problems(document) == [], name


@pytest.mark.parametrize(
    "change",
    [
        {"lockfileVersion": 4},
        {"extra": 1},
        {"digest": "md5:00"},
        {"source": {"transport": "stdio", "command": "x", "args": [], "env": [], "headers": ["Authorization"]}},
        {"tools": [{"tool": {"name": "t", "inputSchema": {}}, "digests": {"tool": "sha256:" + "0" * 64}}]},
    ],
)
def test_the_schema_refuses_what_lock_never_writes(change: dict[str, Any]) -> None:
    document = json.loads((REPO / "lockfiles" / "demo.lock.json").read_text(encoding="utf-8"))
    assert problems({**document, **change}) != []


def test_the_schema_and_the_lockfile_page_name_the_same_keys() -> None:
    table = re.findall(r"^\| `(\w+)` \|", pages()["reference/lockfile.md"], flags=re.MULTILINE)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert sorted(table) == sorted(schema["properties"])


# --- every code block has a checker ---------------------------------------------------------------

# Which test runs or checks a block, by language and content (tests/test_readme.py unless said).
CHECKERS: dict[str, list[tuple[str, str]]] = {
    "sh": [("", "test_readme_command / test_other_shell_lines")],
    "python": [("", "test_readme_python_block_runs")],
    "py": [("", "test_readme_sketches_compile")],
    "toml": [
        ("[servers.", "test_every_config_block_loads"),
        ("extend-exclude", "test_readme_formatter_exclusions_are_what_init_writes"),
        ("[routing]", "test_readme_routing_config_loads"),
        ("[search]", "test_every_search_block_loads (tests/test_docs.py)"),
    ],
    "json": [("mcpServers", "test_readme_serve_client_config_starts_the_server"), ("mcpvend-report", "shape")],
    "jsonl": [('"event"', "test_readme_audit_records_are_what_the_trail_writes")],
    "yaml": [("repos:", "test_readme_pre_commit_hooks_exist"), ("- run:", "readme_commands")],
}


def test_every_code_block_has_a_checker() -> None:
    unchecked = []
    for page, text in {**pages(), "README.md": (REPO / "README.md").read_text(encoding="utf-8")}.items():
        if page == "tutorial.md":
            continue  # tests/test_tutorial.py runs every block of it, in order
        for info, body in blocks(text):
            language = info.split()[0] if info.strip() else ""
            if not any(needle in body for needle, _ in CHECKERS.get(language, [])):
                unchecked.append(f"{page}: ```{info} {body[:60]!r}")
    assert unchecked == []


def test_every_search_block_loads(tmp_path: Path) -> None:
    """A `[search]` table shown alone is a real config's table: it loads, and asks for vendored vectors."""
    shown = [body for text in pages().values() for info, body in blocks(text) if info.startswith("toml")]
    alone = [body for body in shown if body.startswith("[search]")]
    assert alone
    for body in alone:
        (tmp_path / "mcpvend.toml").write_text(body + '\n[servers.demo]\ncommand = "python"\n', encoding="utf-8")
        assert load_config(tmp_path / "mcpvend.toml").semantic


def test_the_tutorial_has_only_blocks_its_test_runs() -> None:
    for info, _ in blocks(pages()["tutorial.md"]):
        assert re.fullmatch(r'(sh|python|json title="[\w.]+")', info), info

"""Credentials are needed only where used: nothing reads a server's env or header values until it starts.

`vault` needs VAULT_TOKEN (its config says `env = { TOKEN = "${VAULT_TOKEN}" }`), `plain` needs
nothing. With no environment at all, everything offline works (`toolset()`, `plan()`, specs,
search, categories, schemas, `mcpvend show`), `plain` answers, and only calls to `vault` fail,
with an error result naming the variable. `ts.check()` is there for those who want to fail fast.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from mcp import Client, StdioServerParameters

from conftest import GOOD_TOOLS, PY, locked_package, mcpvend, replay, write_config, write_tools

VAULT = {"TOKEN": "${VAULT_TOKEN}"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ModuleType]]:
    root = tmp_path_factory.mktemp("credentials")
    tools = write_tools(root / "tools.json", GOOD_TOOLS)
    write_config(root, {"vault": replay(tools, env=VAULT), "plain": replay(tools)})
    os.environ["VAULT_TOKEN"] = "locked-with-it"  # lock needs it: it starts every server
    try:
        with locked_package(root, "credpkg") as package:
            yield root, package
    finally:
        del os.environ["VAULT_TOKEN"]


@pytest.fixture
def no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("VAULT_TOKEN", "TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.anyio
@pytest.mark.usefixtures("no_environment")
async def test_a_toolset_works_offline_and_only_the_server_without_its_credential_fails(
    project: tuple[Path, ModuleType],
) -> None:
    _, package = project
    ts = package.toolset(mode="routed")  # nothing is read from the environment here
    async with ts:
        assert ts.plan().tools == 2 * len(GOOD_TOOLS)
        assert [s["function"]["name"] for s in ts.tool_specs("openai")][:1] == ["search_tools"]
        found = await ts.call("search_tools", {"query": "search"})
        assert {t["name"] for t in found.structured["tools"]} >= {"plain__search", "vault__search"}
        assert {c["name"] for c in (await ts.call("list_categories", {})).structured["categories"]} == {
            "plain",
            "vault",
        }
        assert (await ts.call("get_tool_schema", {"name": "vault__search"})).structured["name"] == "vault__search"
        assert not (await ts.call("plain__search", {"q": "x"})).is_error
        failed = await ts.call("vault__search", {"q": "x"})
        assert failed.is_error and failed.text == (  # the lockfile keeps `TOKEN = "${VAULT_TOKEN}"` as written
            "server 'vault': set environment variable VAULT_TOKEN (env TOKEN uses ${VAULT_TOKEN})"
            " or pass env={'TOKEN': ...} to connect"
        )
        assert not (await ts.call("plain__search", {"q": "still here"})).is_error


@pytest.mark.anyio
@pytest.mark.usefixtures("no_environment")
async def test_values_given_by_reference_name_the_variable_and_check_fails_fast(
    project: tuple[Path, ModuleType],
) -> None:
    _, package = project
    async with package.toolset(connection=package.ConnectionOptions(env={"vault": VAULT})) as ts:
        failed = await ts.call("vault__search", {"q": "x"})
        assert failed.is_error and failed.text == "server 'vault': set ${VAULT_TOKEN} to connect"
        await ts.check(["plain"])
        with pytest.raises(package.ConnectError, match=r"^server 'vault': set \$\{VAULT_TOKEN\}"):
            await ts.check()
    os.environ["VAULT_TOKEN"] = "given-later"
    try:
        async with package.toolset(connection=package.ConnectionOptions(env={"vault": VAULT})) as ts:
            await ts.check()  # with the variable set, every server starts
            assert not (await ts.call("vault__search", {"q": "x"})).is_error
    finally:
        del os.environ["VAULT_TOKEN"]


@pytest.mark.usefixtures("no_environment")
def test_show_needs_no_environment(project: tuple[Path, ModuleType]) -> None:
    root, _ = project
    run = mcpvend("show", "--format", "json", cwd=root)  # VAULT_TOKEN is not set (no_environment)
    assert run.code == 0, run.err
    assert [s["server"] for s in json.loads(run.out)["servers"]] == ["plain", "vault"]


@pytest.mark.anyio
async def test_serve_starts_without_a_servers_credential_and_its_tools_answer_with_an_error(
    project: tuple[Path, ModuleType],
) -> None:
    root, _ = project
    environ = {k: v for k, v in os.environ.items() if k != "VAULT_TOKEN"}
    params = StdioServerParameters(
        command=PY, args=["-m", "mcpvend", "--output", "credpkg", "serve"], cwd=str(root), env=environ
    )
    async with Client(params) as client:
        plain = await client.call_tool("plain__search", {"q": "x"})
        assert not plain.is_error
        vault = await client.call_tool("vault__search", {"q": "x"})
        assert vault.is_error and vault.content[0].text == "server 'vault': set ${VAULT_TOKEN} to connect"

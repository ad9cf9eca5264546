"""The runtime core that is vendored into generated packages, tested where it lives."""

from __future__ import annotations

import sys
from typing import Any

import mcp_types as types
import pytest
from pydantic import BaseModel, ConfigDict, Field, RootModel

from mcpvend.runtime.client.manifest import ConnectError, Manifest
from mcpvend.runtime.client.targets import HttpTarget, StdioTarget
from mcpvend.runtime.wrappers.tools import ToolError, ToolResult, ToolsBase


def manifest(source: dict[str, Any]) -> Manifest:
    return Manifest(server="s", lockfile="l", source=source, capabilities=(), tools=())


STDIO = {"transport": "stdio", "command": "${PY:-python}", "args": ["${ROOT}/server.py"], "env": ["TOKEN"]}


def test_stdio_target_fills_env_by_name_and_expands_variables() -> None:
    target = manifest(STDIO).target(environ={"ROOT": "/srv", "TOKEN": "from-environ"})
    # A locked `python` is the interpreter running the runtime: the agent's venv, activated or not.
    assert target == StdioTarget(
        command=sys.executable, args=("/srv/server.py",), env={"TOKEN": "from-environ"}, cwd=None
    )
    given = manifest({**STDIO, "cwd": "${ROOT}"}).target(env={"TOKEN": "given", "EXTRA": "1"}, environ={"ROOT": "/r"})
    assert given == StdioTarget(
        command=sys.executable, args=("/r/server.py",), env={"TOKEN": "given", "EXTRA": "1"}, cwd="/r"
    )
    for command, started in (("python3", sys.executable), ("python3.11", "python3.11"), ("/usr/bin/python", None)):
        chosen = manifest({**STDIO, "command": command}).target(environ={"ROOT": "/r", "TOKEN": "t"})
        assert chosen.command == (started or command)


def test_given_values_may_name_variables_expanded_when_the_server_starts() -> None:
    given = manifest(STDIO).target(env={"TOKEN": "${VAULT_TOKEN}"}, environ={"ROOT": "/r", "VAULT_TOKEN": "v"})
    assert isinstance(given, StdioTarget) and given.env == {"TOKEN": "v"}
    http = manifest({"transport": "http", "url": "https://h/mcp", "headers": ["Authorization"]})
    target = http.target(headers={"Authorization": "Bearer ${API}"}, environ={"API": "k-1"})
    assert target == HttpTarget(url="https://h/mcp", headers={"Authorization": "Bearer k-1"})
    with pytest.raises(ConnectError, match=r"server 's': set \$\{API\} to connect"):
        http.target(headers={"Authorization": "Bearer ${API}"}, environ={})


def test_missing_values_are_named() -> None:
    with pytest.raises(ConnectError, match=r"server 's': set environment variable TOKEN \(or pass env=\)"):
        manifest(STDIO).target(environ={"ROOT": "/r"})
    with pytest.raises(ConnectError, match=r"server 's': set \$\{ROOT\} to connect"):
        manifest(STDIO).target(environ={"TOKEN": "t"})
    http = manifest({"transport": "http", "url": "https://h/${PATH_PART}", "headers": ["Authorization"]})
    with pytest.raises(ConnectError, match=r"pass headers=\{'Authorization': \.\.\.\}"):
        http.target(environ={"PATH_PART": "mcp"})
    assert http.target(headers={"Authorization": "Bearer x"}, environ={"PATH_PART": "mcp"}) == HttpTarget(
        url="https://h/mcp", headers={"Authorization": "Bearer x"}
    )


class Args(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    query: str
    limit: int | None = 10
    from_: str | None = Field(default=None, alias="from")
    nullable_required: str | None


class Extra(RootModel[dict[str, int]]):
    root: dict[str, int]


class Recorder:
    """A session stand-in that records what would go on the wire and answers as told."""

    def __init__(self, result: types.CallToolResult) -> None:
        self.result = result
        self.calls: list[tuple[str, dict[str, Any] | None, float | None]] = []

    async def send_request(
        self,
        request: types.CallToolRequest,
        result_type: type[Any],
        request_read_timeout_seconds: float | None = None,
        progress_callback: Any = None,
    ) -> types.CallToolResult:
        wire = self.result.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert isinstance(result_type.validate_python(wire), types.CallToolResult)  # what the call accepts
        self.calls.append((request.params.name, request.params.arguments, request_read_timeout_seconds))
        return self.result


OK = types.CallToolResult(content=[types.TextContent(type="text", text="a"), types.TextContent(type="text", text="b")])


@pytest.mark.anyio
async def test_keyword_arguments_are_validated_and_sent_by_alias_without_unset_optionals() -> None:
    session = Recorder(OK)
    tools = ToolsBase(session, timeout=5)
    result = await tools._call_content(
        "search", Args, None, {"query": "q", "limit": None, "from_": "x", "nullable_required": None}
    )
    assert session.calls == [("search", {"query": "q", "from": "x", "nullable_required": None}, 5)]
    assert isinstance(result, ToolResult) and result.text == "a\nb"
    await tools._call_content("search", Args, Args(query="q", nullable_required="n"), {})
    assert session.calls[-1][1] == {"query": "q", "nullable_required": "n"}
    await tools._call_content("extra", Extra, {"a": 1}, {})
    assert session.calls[-1][1] == {"a": 1}


@pytest.mark.anyio
async def test_bad_arguments_fail_before_anything_is_sent() -> None:
    session = Recorder(OK)
    tools = ToolsBase(session)
    with pytest.raises(TypeError, match="unexpected keyword argument 'qurey'"):
        await tools._call_content("search", Args, None, {"qurey": "q", "nullable_required": None})
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'from' \(property 'from' is parameter 'from_'\)"):
        await tools._call_content("search", Args, None, {"query": "q", "from": "x", "nullable_required": None})
    with pytest.raises(TypeError, match="not both"):
        await tools._call_content("search", Args, Args(query="q", nullable_required=None), {"limit": 1})
    with pytest.raises(ValueError, match="query"):
        await tools._call_content("search", Args, None, {"nullable_required": None})
    assert session.calls == []


class Out(BaseModel):
    ok: bool


@pytest.mark.anyio
async def test_results_errors_and_missing_structured_content() -> None:
    structured = types.CallToolResult(content=[], structured_content={"ok": True})
    assert await ToolsBase(Recorder(structured))._call_structured(
        "t", Args, Out, Args(query="q", nullable_required=None), {}
    ) == Out(ok=True)
    failing = types.CallToolResult(content=[types.TextContent(type="text", text="disk full")], is_error=True)
    with pytest.raises(ToolError, match="tool 't' failed: disk full") as caught:
        await ToolsBase(Recorder(failing))._call_content("t", Args, Args(query="q", nullable_required=None), {})
    assert caught.value.text == "disk full" and caught.value.tool == "t"
    with pytest.raises(ToolError, match="no structuredContent"):
        await ToolsBase(Recorder(OK))._call_structured("t", Args, Out, Args(query="q", nullable_required=None), {})

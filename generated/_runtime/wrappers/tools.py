# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""What generated wrappers stand on: call a tool, validate in and out, type the result."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp import Client, ClientSession, MCPError
from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT
from pydantic import BaseModel, RootModel

from ..client import failures
from ..client.connection import InputHandlers
from ..client.manifest import ConnectError, load_manifest
from ..client.methods import call_tool
from ..client.pinning import DEFAULT_PIN_TTL, DriftError, Pinning, Pins
from ..client.session import pinned_client
from ..client.streams import WireTap

ContentBlock = types.TextContent | types.ImageContent | types.AudioContent | types.ResourceLink | types.EmbeddedResource
OutputT = TypeVar("OutputT", bound=BaseModel)
ModelT = TypeVar("ModelT", bound=BaseModel)
ToolsT = TypeVar("ToolsT", bound="ToolsBase")
# The SDK's callback types and `InputHandlers` are here for the generated `connect()` to import.
__all__ = [
    "DriftError",
    "ElicitationFnT",
    "InputHandlers",
    "ListRootsFnT",
    "Pinning",
    "SamplingFnT",
    "ToolError",
    "ToolResult",
    "ToolsBase",
    "from_wire",
    "open_tools",
]


def _text(content: list[ContentBlock]) -> str:
    return "\n".join(block.text for block in content if isinstance(block, types.TextContent))


class ToolError(Exception):
    """The server ran the tool and reported a failure (`isError`); `content` says what it said."""

    def __init__(self, tool: str, content: list[ContentBlock], message: str | None = None) -> None:
        self.tool = tool
        self.content = content
        super().__init__(f"tool '{tool}' failed: {message or _text(content) or 'no details given'}")

    @property
    def text(self) -> str:
        return _text(self.content)


@dataclass(frozen=True)
class ToolResult:
    """The result of a tool without an output schema: its content blocks, typed."""

    content: list[ContentBlock]
    structured: Any = None

    @property
    def text(self) -> str:
        """The text blocks joined by newlines (images, audio and resources left out)."""
        return _text(self.content)


class ToolsBase:
    """Base of every generated `Tools` class: holds a session and runs the calls.

    Everything it holds is private: a tool may be named `session`, `timeout` or `call`, and its
    method must not replace what the other methods use (`naming.TOOLS_ATTRIBUTES`).
    """

    def __init__(
        self,
        session: Client | ClientSession,
        *,
        timeout: float | None = None,
        pins: Pins | None = None,
        tap: WireTap | None = None,
        secrets: frozenset[str] = frozenset(),
        checked: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self._session = session
        self._timeout = timeout  # per call
        self._pins = pins  # with `connect()`: compared again when the server announces a change
        self._tap = tap
        self._secrets = secrets  # taken out of the server's error messages
        # Reviewed input schemas, by tool, whose patterns the models leave out (the manifest's `checked`).
        self._checked = checked or {}

    async def _call_structured(
        self,
        name: str,
        input_model: type[BaseModel],
        output_model: type[OutputT],
        arguments: object,
        kwargs: Mapping[str, Any],
    ) -> OutputT:
        result = await self._call(name, input_model, arguments, kwargs)
        if result.structured_content is None and "structured_content" not in result.model_fields_set:
            raise ToolError(name, result.content, "the server sent no structuredContent for a tool with outputSchema")
        return from_wire(output_model, result.structured_content)

    async def _call_content(
        self, name: str, input_model: type[BaseModel], arguments: object, kwargs: Mapping[str, Any]
    ) -> ToolResult:
        result = await self._call(name, input_model, arguments, kwargs)
        return ToolResult(content=list(result.content), structured=result.structured_content)

    async def _call(
        self, name: str, input_model: type[BaseModel], arguments: object, kwargs: Mapping[str, Any]
    ) -> types.CallToolResult:
        model = _input(input_model, arguments, kwargs)
        if self._pins is not None and isinstance(self._session, Client):
            await self._pins.ensure(self._session, self._tap)
            if (refusal := self._pins.refusal(name)) is not None:
                raise DriftError(f"tool '{name}' refused: {refusal}")
        payload = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if (schema := self._checked.get(name)) is not None:
            # jsonschema, imported only for a tool that needs it: the wrappers start without it.
            from ..core.validation import problem

            if (why := problem(schema, payload)) is not None:
                raise ValueError(f"tool '{name}': invalid arguments {why}")
        try:
            result = await call_tool(self._session, name, payload, self._timeout)
        except MCPError as exc:
            clean = failures.redacted_error(exc, self._secrets)
            if clean is None:
                raise
            raise clean from None
        if result.is_error:
            raise ToolError(name, list(result.content))
        return result


def from_wire(model: type[ModelT], data: object) -> ModelT:
    """A model from JSON as a server or model sent it: keys are property names, never field names.

    Generated models also accept field names (for keyword arguments and constructors), so an
    extra key `foo_bar` would otherwise fill the field of property `fooBar`. (pydantic >= 2.11)
    """
    validated = model.model_validate(data, by_alias=True, by_name=False)
    _keep_only_given(validated, data)
    return validated


def _keep_only_given(value: object, data: object) -> None:
    """Mark as set only the fields whose keys `data` holds.

    pydantic (2.14) also counts a field as set when an extra key equals its field name (`foo_bar`
    beside property `fooBar`): the wrappers, which send the set fields, would send `fooBar: null`.
    """
    if isinstance(value, RootModel):
        _keep_only_given(value.root, data)
    elif isinstance(value, BaseModel) and isinstance(data, Mapping):
        fields = type(value).model_fields
        given = {name for name, info in fields.items() if (info.alias or name) in data}
        value.__pydantic_fields_set__ &= given
        for name in given:
            _keep_only_given(getattr(value, name), data[fields[name].alias or name])
    elif isinstance(value, list | tuple) and isinstance(data, list | tuple):
        for item, raw in zip(value, data, strict=False):
            _keep_only_given(item, raw)
    elif isinstance(value, Mapping) and isinstance(data, Mapping):
        for key, item in value.items():
            if key in data:
                _keep_only_given(item, data[key])


def _input(model: type[BaseModel], arguments: object, kwargs: Mapping[str, Any]) -> BaseModel:
    """The validated input: a model instance as given, or one built from keyword arguments.

    An optional parameter left at None is not sent, so the server applies its own default.
    """
    if arguments is not None:
        if kwargs:
            raise TypeError("pass either an input model or keyword arguments, not both")
        return arguments if isinstance(arguments, model) else from_wire(model, arguments)
    if issubclass(model, RootModel):
        return model.model_validate(dict(kwargs))
    fields = model.model_fields
    unknown = sorted(kwargs.keys() - fields.keys())
    if unknown:
        by_alias = {info.alias: name for name, info in fields.items() if info.alias}
        hint = f" (property {unknown[0]!r} is parameter {by_alias[unknown[0]]!r})" if unknown[0] in by_alias else ""
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}{hint}")
    present = {k: v for k, v in kwargs.items() if v is not None or fields[k].is_required()}
    return model.model_validate(present, by_alias=False, by_name=True)


@asynccontextmanager
async def open_tools(
    cls: type[ToolsT],
    package: str,
    *,
    env: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float | None = None,
    start_timeout: float | None = None,
    pinning: Pinning = "strict",
    pin_ttl: float = DEFAULT_PIN_TTL,
    handlers: InputHandlers | None = None,
) -> AsyncIterator[ToolsT]:
    """Start (or reach) the locked server of a generated package, and close it afterwards.

    Starting (spawn, initialize, the first comparison of tools) is bounded by `start_timeout`
    (default: the config's `timeout` when the server was locked, else 30 s); each call by
    `timeout`. Unless `pinning` is "off", the live tools are compared with the reviewed ones
    first, and again after the server announces a change: "strict" refuses drifted and vanished
    tools (the others keep working), "warn" logs each once. Over HTTP they are compared again
    once `pin_ttl` seconds have passed.
    """
    manifest = load_manifest(package)
    target = manifest.target(env=env, headers=headers, cwd=cwd)
    secrets = target.secret_values()
    pins = Pins(manifest.server, manifest.reviewed, pinning, ttl=pin_ttl if manifest.transport != "stdio" else None)
    limit = manifest.start_timeout if start_timeout is None else start_timeout
    started = False
    with anyio.CancelScope(deadline=anyio.current_time() + limit) as starting:
        try:
            async with pinned_client(target, manifest, pins, pinning=pinning, handlers=handlers) as (client, tap):
                starting.deadline = math.inf  # started: from here on, each call has its own bound
                started = True
                yield cls(client, timeout=timeout, pins=pins, tap=tap, secrets=secrets, checked=manifest.checked)
        except Exception as exc:
            if started:
                raise
            # The SDK's errors may quote a credential; this one cannot.
            raise ConnectError(failures.not_started(manifest.server, exc, secrets)) from None
    if starting.cancelled_caught and not started:
        raise ConnectError(f"server '{manifest.server}' did not start within {limit:g} s")

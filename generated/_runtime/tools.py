# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
"""What generated wrappers stand on: call a tool, validate in and out, type the result."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import mcp_types as types
from mcp import Client, ClientSession, MCPError
from pydantic import BaseModel, RootModel

from . import failures
from .connection import WireTap, call_tool, list_tools_raw, open_client
from .digests import DIGESTED_FIELDS, tool_digests
from .manifest import ConnectError, Manifest, load_manifest

Pinning = Literal["strict", "warn", "off"]

logger = logging.getLogger("mcpvend.pinning")
_warned: set[tuple[str, str, str]] = set()

ContentBlock = (
    types.TextContent
    | types.ImageContent
    | types.AudioContent
    | types.ResourceLink
    | types.EmbeddedResource
)
OutputT = TypeVar("OutputT", bound=BaseModel)
ModelT = TypeVar("ModelT", bound=BaseModel)
ToolsT = TypeVar("ToolsT", bound="ToolsBase")


def _text(content: list[ContentBlock]) -> str:
    return "\n".join(
        block.text for block in content if isinstance(block, types.TextContent)
    )


class DriftError(Exception):
    """A tool that no longer matches its reviewed definition was refused (pinning="strict")."""


@dataclass(frozen=True)
class PinReport:
    """How the live server's tools compare with the reviewed ones."""

    drifted: Mapping[str, str] = field(
        default_factory=dict
    )  # tool -> the parts that changed
    missing: tuple[str, ...] = ()  # reviewed, but not served any more
    unknown: tuple[str, ...] = ()  # served, but never reviewed

    def reasons(self) -> dict[str, str]:
        """Why each refused tool is refused."""
        reasons = {
            name: f"its {parts} changed since review"
            for name, parts in self.drifted.items()
        }
        reasons.update(
            {name: "the server no longer serves it" for name in self.missing}
        )
        return reasons


def pin(reviewed: Iterable[Mapping[str, Any]], live: Iterable[Any]) -> PinReport:
    """Compare served tools with manifest entries (`{"tool": ..., "digests": ...}`) by digest."""
    expected = {entry["tool"]["name"]: entry["digests"] for entry in reviewed}
    served = {
        t["name"]: tool_digests(t)
        for t in live
        if isinstance(t, dict) and isinstance(t.get("name"), str)
    }
    drifted = {}
    for name in sorted(expected.keys() & served.keys()):
        if served[name]["tool"] != expected[name]["tool"]:
            parts = [
                key
                for key in DIGESTED_FIELDS
                if served[name][key] != expected[name][key]
            ] or ["other fields"]
            drifted[name] = ", ".join(parts)
    return PinReport(
        drifted,
        tuple(sorted(expected.keys() - served.keys())),
        tuple(sorted(served.keys() - expected.keys())),
    )


class ToolError(Exception):
    """The server ran the tool and reported a failure (`isError`); `content` says what it said."""

    def __init__(
        self, tool: str, content: list[ContentBlock], message: str | None = None
    ) -> None:
        self.tool = tool
        self.content = content
        super().__init__(
            f"tool '{tool}' failed: {message or _text(content) or 'no details given'}"
        )

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
        refused: Mapping[str, str] | None = None,
        secrets: frozenset[str] = frozenset(),
    ) -> None:
        self._session = session
        self._timeout = timeout
        self._refused = dict(refused or {})  # tool -> why pinning refuses it
        self._secrets = secrets  # taken out of the server's error messages

    async def _call_structured(
        self,
        name: str,
        input_model: type[BaseModel],
        output_model: type[OutputT],
        arguments: object,
        kwargs: Mapping[str, Any],
    ) -> OutputT:
        result = await self._call(name, input_model, arguments, kwargs)
        if result.structured_content is None:
            raise ToolError(
                name,
                result.content,
                "the server sent no structuredContent for a tool with outputSchema",
            )
        return from_wire(output_model, result.structured_content)

    async def _call_content(
        self,
        name: str,
        input_model: type[BaseModel],
        arguments: object,
        kwargs: Mapping[str, Any],
    ) -> ToolResult:
        result = await self._call(name, input_model, arguments, kwargs)
        return ToolResult(
            content=list(result.content), structured=result.structured_content
        )

    async def _call(
        self,
        name: str,
        input_model: type[BaseModel],
        arguments: object,
        kwargs: Mapping[str, Any],
    ) -> types.CallToolResult:
        if name in self._refused:
            raise DriftError(
                f"tool '{name}' refused: {self._refused[name]} (pinning is strict; review and re-lock)"
            )
        model = _input(input_model, arguments, kwargs)
        payload = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
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


def _input(
    model: type[BaseModel], arguments: object, kwargs: Mapping[str, Any]
) -> BaseModel:
    """The validated input: a model instance as given, or one built from keyword arguments.

    An optional parameter left at None is not sent, so the server applies its own default.
    """
    if arguments is not None:
        if kwargs:
            raise TypeError("pass either an input model or keyword arguments, not both")
        return (
            arguments if isinstance(arguments, model) else from_wire(model, arguments)
        )
    if issubclass(model, RootModel):
        return model.model_validate(dict(kwargs))
    fields = model.model_fields
    unknown = sorted(kwargs.keys() - fields.keys())
    if unknown:
        by_alias = {info.alias: name for name, info in fields.items() if info.alias}
        hint = (
            f" (property {unknown[0]!r} is parameter {by_alias[unknown[0]]!r})"
            if unknown[0] in by_alias
            else ""
        )
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}{hint}")
    present = {
        k: v for k, v in kwargs.items() if v is not None or fields[k].is_required()
    }
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
    pinning: Pinning = "strict",
) -> AsyncIterator[ToolsT]:
    """Start (or reach) the locked server of a generated package, and close it afterwards.

    Unless `pinning` is "off", the live tool list is compared with the reviewed digests first:
    "strict" refuses drifted and vanished tools (the others keep working), "warn" logs each once.
    """
    manifest = load_manifest(package)
    target = manifest.target(env=env, headers=headers, cwd=cwd)
    secrets = target.secret_values()
    tap = WireTap() if pinning != "off" else None
    async with AsyncExitStack() as stack:
        try:
            client = await stack.enter_async_context(
                open_client(
                    target,
                    capabilities=manifest.capabilities,
                    read_timeout=timeout,
                    tap=tap,
                )
            )
            refused = await check_pins(manifest, client, tap, pinning)
        except (
            Exception
        ) as exc:  # noqa: BLE001 - the SDK's errors may quote a credential; this one cannot
            raise ConnectError(
                failures.not_started(manifest.server, exc, secrets)
            ) from None
        yield cls(client, timeout=timeout, refused=refused, secrets=secrets)


async def check_pins(
    manifest: Manifest, client: Client, tap: WireTap | None, pinning: Pinning
) -> dict[str, str]:
    """The tools to refuse (tool -> why) after comparing the live list with the reviewed one.

    Needs a `tap` unless pinning is "off"; "warn" logs each drifted tool once per process.
    """
    if pinning == "off" or tap is None:
        return {}
    live, _ = await list_tools_raw(client, tap)
    reasons = pin(manifest.tools, live).reasons()
    if pinning == "warn":
        for name, reason in sorted(reasons.items()):
            if (manifest.server, name, reason) not in _warned:
                _warned.add((manifest.server, name, reason))
                logger.warning(
                    "server '%s': tool '%s' drifted: %s", manifest.server, name, reason
                )
        return {}
    return reasons

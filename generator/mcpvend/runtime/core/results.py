"""Tool results as a model can read them: text, checked structured content, media by reference.

A model pays for every character it reads and cannot look at base64, so images, audio and
blobs are kept aside (in memory or on disk) and the model gets a short reference instead.
Structured content is checked against the reviewed output schema, because a server that
drifted must not feed the model shapes nobody reviewed. The same result always reads the same.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types

from ..client.files import write_atomic
from . import validation

if TYPE_CHECKING:
    from .catalog import Entry

DEFAULT_MAX_CHARS = 20_000
NO_DETAILS = "the tool reported an error without details"
MISMATCH = "the tool's structured result does not match its reviewed output schema"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_DATA_URL = re.compile(r"^\s*data:[^,]*;base64,", re.IGNORECASE)  # some servers send a data URL, not base64
_MIME = mimetypes.MimeTypes()  # the built-in table only, so file names do not depend on the machine's mime.types


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=lambda o: f"<{type(o).__name__}>")


def _token(value: Any) -> str:
    """A value that stays one readable line: as is when it is a plain word, else as JSON."""
    if isinstance(value, str) and value and not any(c.isspace() or c in "[]" for c in value):
        return value
    return _compact(value)


@dataclass(frozen=True)
class MediaRef:
    """Stands in for an image, audio clip or binary blob the model must not read as base64."""

    kind: str  # "image" | "audio" | "blob"
    mime_type: str | None
    size: int  # bytes, decoded
    sha256: str  # hex digest of the decoded bytes
    location: str  # where it is kept: a file path, or "memory:<sha256>"
    uri: str | None = None  # the resource URI, for embedded blob resources

    def describe(self) -> dict[str, Any]:
        """The reference the model reads; keys in a fixed order so the text is stable."""
        described: dict[str, Any] = {
            "type": self.kind,
            "mimeType": self.mime_type,
            "size": self.size,
            "sha256": self.sha256,
            "location": self.location,
        }
        if self.uri is not None:
            described["uri"] = self.uri
        return described


class MediaStore:
    """Keeps decoded media so the model gets a reference and the program can still reach the bytes."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self._memory: dict[str, bytes] = {}

    def keep(self, data: bytes, mime_type: str | None) -> str:
        """Where `data` is kept; files are named by digest, so the same bytes are written once."""
        digest = hashlib.sha256(data).hexdigest()
        if self.directory is None:
            self._memory.setdefault(digest, bytes(data))
            return f"memory:{digest}"
        extension = _MIME.guess_extension(mime_type) if isinstance(mime_type, str) else None
        path = self.directory / f"{digest}{extension or '.bin'}"
        if path.is_file():
            return os.fspath(path)
        kept = self._existing(digest)  # the same bytes, kept earlier under another MIME type's extension
        if kept is not None:
            return os.fspath(kept)
        write_atomic(path, data)
        return os.fspath(path)

    def get(self, sha256: str) -> bytes | None:
        """The bytes kept under that digest, or None; a file that no longer matches it counts as gone."""
        if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
            return None
        if self.directory is None:
            return self._memory.get(sha256)
        path = self._existing(sha256)
        try:
            data = path.read_bytes() if path is not None else None
        except OSError:
            return None
        return data if data is not None and hashlib.sha256(data).hexdigest() == sha256 else None

    def _existing(self, digest: str) -> Path | None:
        if self.directory is None or not self.directory.is_dir():
            return None
        return next(iter(sorted(self.directory.glob(f"{digest}.*"))), None)


@dataclass(frozen=True)
class ModelResult:
    """What the model reads back from one tool call."""

    text: str
    is_error: bool = False
    structured: Any = None
    media: tuple[MediaRef, ...] = ()
    retry: bool = False  # the call was wrong (a name, the arguments): the model can correct it and call again
    failed: bool = False  # no tool result came back (the server died, timed out, sent an error): it may work again

    def openai_message(self, tool_call_id: str) -> dict[str, Any]:
        """A Chat Completions `tool` message; it has no error flag, so errors travel in the text."""
        return {"role": "tool", "tool_call_id": tool_call_id, "content": self.text}

    def anthropic_block(self, tool_use_id: str) -> dict[str, Any]:
        """A Messages API `tool_result` block."""
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": self.text, "is_error": self.is_error}


@dataclass(frozen=True)
class Outcome:
    """How one call ended, as the call path decides it once: what the model reads, and what to record.

    `kind` is None when the result says it (`ok`, or `error`); else one of `invalid_arguments`,
    `unknown_tool`, `not_routed`, `refused`, `failed`, `tool_error`, `invalid_output`, `ok`.
    """

    result: ModelResult
    kind: str | None = None
    entry: Entry | None = None  # the tool the call reached (by its name, or through call_tool)
    via: str | None = None  # the meta-tool it went through
    arguments: Mapping[str, Any] | None = None  # the tool's own arguments, when they came inside the meta-tool's
    retries: int = 0  # how often it was sent again after the server was restarted


def error_result(
    message: str, *, max_chars: int = DEFAULT_MAX_CHARS, retry: bool = False, failed: bool = False
) -> ModelResult:
    """An error the model can read and act on, cut like any other result."""
    return ModelResult(truncate(message, max_chars), is_error=True, retry=retry, failed=failed)


def truncate(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters of content plus a marker saying how much was cut, e.g.
    "...\n[truncated by mcpvend: showing 20000 of 53211 characters]". limit <= 0 means no limit. Never cuts a
    surrogate pair (Python str has none, fine) — just cut on a character index. Deterministic."""
    if limit <= 0 or len(text) <= limit:
        return text
    return f"{text[:limit]}\n[truncated by mcpvend: showing {limit} of {len(text)} characters]"


def normalize(
    result: types.CallToolResult,
    *,
    output_schema: Mapping[str, Any] | None,
    store: MediaStore,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> ModelResult:
    """One tool call's result for the model; never raises on odd content, never shows base64."""
    lines: list[str] = []
    media: list[MediaRef] = []
    has_text = False
    content = getattr(result, "content", None)
    for block in content if isinstance(content, list | tuple) else ():
        if isinstance(block, types.TextContent):
            has_text = True
            lines.append(block.text if isinstance(block.text, str) else "[text content omitted: not a string]")
        elif isinstance(block, types.ImageContent | types.AudioContent):
            kind = "image" if isinstance(block, types.ImageContent) else "audio"
            lines.append(_media(kind, block.data, block.mime_type, None, store, media))
        elif isinstance(block, types.EmbeddedResource):
            lines.append(_embedded(block.resource, store, media))
        elif isinstance(block, types.ResourceLink):
            lines.append(_link(block))
        else:
            tag = block.get("type") if isinstance(block, Mapping) else getattr(block, "type", None)
            lines.append(f"[{_token(tag if isinstance(tag, str) else type(block).__name__)} content omitted]")
    text = "\n".join(lines)
    structured = getattr(result, "structured_content", None)
    if getattr(result, "is_error", False):
        if not has_text and structured is not None:
            text = "\n".join([_compact(structured), *lines])
        return ModelResult(truncate(text or NO_DETAILS, max_chars), is_error=True, media=tuple(media))
    if output_schema is not None:
        sent = "structured_content" in getattr(result, "model_fields_set", ()) or structured is not None
        problem = _check(structured, output_schema, sent=sent)
        if problem is not None:
            return ModelResult(truncate(problem, max_chars), is_error=True, media=tuple(media))
    compact = None if structured is None else _compact(structured)  # dumped once: it may be large
    if compact is not None and not has_text:
        text = "\n".join([compact, *lines])
    if compact is not None and max_chars > 0 and (size := len(compact)) > max_chars:
        # Cut like the text, or one large result fills a context (and a served client's memory): the
        # model gets its start and what to do, never a structured value it cannot be given whole.
        over = f"[the structured result is {size} characters, over the {max_chars}-character cap: ask for less]"
        return ModelResult(f"{truncate(text, max_chars)}\n{over}", is_error=True, media=tuple(media))
    return ModelResult(truncate(text, max_chars), structured=structured, media=tuple(media))


def _media(kind: str, data: Any, mime_type: Any, uri: str | None, store: MediaStore, media: list[MediaRef]) -> str:
    """Keep the decoded bytes and return the line that stands in for them."""
    if not isinstance(data, str):
        return f"[{kind}: no base64 data, nothing kept]"
    try:
        encoded = "".join(_DATA_URL.sub("", data, count=1).split())
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except ValueError:  # binascii.Error, and non-ASCII characters
        return f"[{kind}: invalid base64 data, {len(data)} characters dropped]"
    mime = mime_type if isinstance(mime_type, str) and mime_type else None
    digest = hashlib.sha256(decoded).hexdigest()
    ref = MediaRef(kind, mime, len(decoded), digest, store.keep(decoded, mime), uri)
    media.append(ref)
    return f"[{kind}: {_compact(ref.describe())}]"


def _embedded(resource: Any, store: MediaStore, media: list[MediaRef]) -> str:
    uri = resource.uri if isinstance(getattr(resource, "uri", None), str) else None
    if isinstance(resource, types.BlobResourceContents):
        return _media("blob", resource.blob, resource.mime_type, uri, store, media)
    if isinstance(resource, types.TextResourceContents):
        mime = f" ({_token(resource.mime_type)})" if resource.mime_type else ""
        text = resource.text if isinstance(resource.text, str) else "[text omitted: not a string]"
        return f"[resource {_token(uri)}{mime}]\n{text}"
    return "[resource content omitted]"


def _link(link: types.ResourceLink) -> str:
    parts = [f"[resource link: {_token(getattr(link, 'uri', None))}"]
    for key, value in (("name", link.name), ("title", link.title), ("description", link.description)):
        if isinstance(value, str) and value:
            parts.append(f"{key}={_compact(value)}")
    if isinstance(link.mime_type, str) and link.mime_type:
        parts.append(f"mimeType={_token(link.mime_type)}")
    if isinstance(link.size, int) and not isinstance(link.size, bool):
        parts.append(f"size={link.size}")
    return " ".join(parts) + "]"


def _check(structured: Any, schema: Mapping[str, Any], *, sent: bool) -> str | None:
    """Why `structured` fails the schema (short), or None when it conforms (`null` may, where the schema allows it)."""
    if not sent:
        return f"{MISMATCH}: the server sent no structuredContent"
    try:
        problem = validation.problem(schema, structured)
    except validation.SchemaUnusable as exc:
        return f"the tool's reviewed output schema cannot be used: {exc}"
    return None if problem is None else f"{MISMATCH}: {problem}"

"""Tool results as the model reads them: text, checked structured content, media by reference."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from mcpvend.runtime.core import validation
from mcpvend.runtime.core.results import (
    DEFAULT_MAX_CHARS,
    MediaRef,
    MediaStore,
    ModelResult,
    error_result,
    normalize,
    truncate,
)

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3  # long enough that any base64 slice would be obvious
PNG_B64 = base64.b64encode(PNG).decode()
PNG_SHA = hashlib.sha256(PNG).hexdigest()
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00\x01" * 200
SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer"}, "name": {"type": "string"}},
    "required": ["count"],
}


def text(value: str) -> types.TextContent:
    return types.TextContent(type="text", text=value)


def run(
    *content: Any, schema: dict[str, Any] | None = None, store: MediaStore | None = None, **fields: Any
) -> ModelResult:
    result = types.CallToolResult(content=list(content), **fields)
    return normalize(result, output_schema=schema, store=store or MediaStore())


def assert_no_base64(rendered: str, data: str) -> None:
    assert data not in rendered
    for start in range(0, len(data) - 24, 24):  # not even a fragment of it
        assert data[start : start + 24] not in rendered


def test_text_blocks_are_joined_in_order() -> None:
    result = run(text("first"), text(""), text("third"))
    assert result == ModelResult(text="first\n\nthird")


def test_image_becomes_a_reference_and_its_bytes_stay_reachable() -> None:
    store = MediaStore()
    result = run(text("here:"), types.ImageContent(type="image", data=PNG_B64, mime_type="image/png"), store=store)
    ref = MediaRef("image", "image/png", len(PNG), PNG_SHA, f"memory:{PNG_SHA}")
    assert result.media == (ref,)
    described = f'{{"type":"image","mimeType":"image/png","size":{len(PNG)},"sha256":"{PNG_SHA}","location":"memory:{PNG_SHA}"}}'
    assert result.text == f"here:\n[image: {described}]"
    assert json.loads(result.text.split("[image: ", 1)[1][:-1]) == ref.describe()
    assert_no_base64(result.text, PNG_B64)
    assert store.get(PNG_SHA) == PNG
    assert store.get("0" * 64) is None and store.get("not a digest") is None


def test_audio_becomes_a_reference() -> None:
    store = MediaStore()
    data = base64.b64encode(WAV).decode()
    result = run(types.AudioContent(type="audio", data=data, mime_type="audio/wav"), store=store)
    digest = hashlib.sha256(WAV).hexdigest()
    assert result.media == (MediaRef("audio", "audio/wav", len(WAV), digest, f"memory:{digest}"),)
    assert result.text.startswith('[audio: {"type":"audio","mimeType":"audio/wav",')
    assert_no_base64(result.text, data)
    assert store.get(digest) == WAV


def test_embedded_blob_becomes_a_reference_with_its_uri() -> None:
    blob = b"%PDF-1.7 \x00\xff" * 50
    encoded = base64.b64encode(blob).decode()
    resource = types.BlobResourceContents(uri="file:///report.pdf", mime_type="application/pdf", blob=encoded)
    result = run(types.EmbeddedResource(type="resource", resource=resource))
    digest = hashlib.sha256(blob).hexdigest()
    ref = MediaRef("blob", "application/pdf", len(blob), digest, f"memory:{digest}", uri="file:///report.pdf")
    assert result.media == (ref,)
    assert ref.describe()["uri"] == "file:///report.pdf" and list(ref.describe())[-1] == "uri"
    assert result.text == f"[blob: {json.dumps(ref.describe(), separators=(',', ':'))}]"
    assert_no_base64(result.text, encoded)


def test_embedded_text_resource_is_shown_with_its_uri_and_type() -> None:
    with_type = types.TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="line 1\nline 2")
    without = types.TextResourceContents(uri="mem://a", text="bare")
    result = run(types.EmbeddedResource(type="resource", resource=with_type), types.EmbeddedResource(resource=without))
    assert result.text == "[resource file:///notes.txt (text/plain)]\nline 1\nline 2\n[resource mem://a]\nbare"
    assert result.media == ()


def test_resource_link_is_one_line_without_absent_parts() -> None:
    full = types.ResourceLink(type="resource_link", uri="file:///r.csv", name="r.csv", mime_type="text/csv", size=12)
    bare = types.ResourceLink(uri="https://x.test/a", name="two words")
    result = run(full, bare)
    assert result.text == (
        '[resource link: file:///r.csv name="r.csv" mimeType=text/csv size=12]\n'
        '[resource link: https://x.test/a name="two words"]'
    )


def test_invalid_base64_is_a_note_not_the_data() -> None:
    store = MediaStore()
    bad = "not*base64!" * 3
    result = run(types.ImageContent(type="image", data=bad, mime_type="image/png"), store=store)
    assert result.text == f"[image: invalid base64 data, {len(bad)} characters dropped]"
    assert result.media == () and bad not in result.text
    assert store._memory == {}


def test_wrapped_base64_and_data_urls_decode_to_the_same_bytes() -> None:
    wrapped = "\n".join(PNG_B64[i : i + 76] for i in range(0, len(PNG_B64), 76))
    data_url = f"data:image/png;base64,{PNG_B64.rstrip('=')}"
    result = run(*(types.ImageContent(type="image", data=d, mime_type="image/png") for d in (wrapped, data_url)))
    assert [ref.sha256 for ref in result.media] == [PNG_SHA, PNG_SHA]
    assert "data:" not in result.text


def test_odd_content_does_not_raise_and_reads_the_same_every_time() -> None:
    odd = types.CallToolResult.model_construct(
        content=[
            types.ImageContent.model_construct(type="image", data=5, mime_type=None),
            types.ImageContent.model_construct(type="image", data=base64.b64encode(b"hi").decode(), mime_type=None),
            {"type": "video"},
            object(),
        ],
        structured_content=None,
        is_error=False,
    )
    first = normalize(odd, output_schema=None, store=MediaStore())
    assert normalize(odd, output_schema=None, store=MediaStore()) == first
    lines = first.text.split("\n")
    assert lines[0] == "[image: no base64 data, nothing kept]"
    assert lines[1].startswith('[image: {"type":"image","mimeType":null,"size":2,')
    assert lines[2:] == ["[video content omitted]", "[object content omitted]"]
    assert first.media[0].mime_type is None


def test_errors_are_error_results_and_skip_schema_checks() -> None:
    failed = run(text("disk full"), is_error=True, schema=SCHEMA, structured_content={"count": "many"})
    assert failed == ModelResult(text="disk full", is_error=True)
    assert run(is_error=True) == ModelResult(text="the tool reported an error without details", is_error=True)
    assert failed.anthropic_block("t1")["is_error"] is True


def test_valid_structured_content_is_kept_and_shown_as_json_without_text() -> None:
    value = {"name": "é", "count": 3}
    result = run(structured_content=value, schema=SCHEMA)
    assert result == ModelResult(text='{"name":"é","count":3}', structured=value)
    with_text = run(text("three"), structured_content=value, schema=SCHEMA)
    assert with_text == ModelResult(text="three", structured=value)


def test_invalid_structured_content_is_an_error_naming_the_problem() -> None:
    result = run(text("ok"), structured_content={"count": "many"}, schema=SCHEMA)
    assert result.is_error and result.structured is None
    assert result.text == (
        "the tool's structured result does not match its reviewed output schema: "
        "at $.count: 'many' is not of type 'integer'"
    )


def test_missing_structured_content_is_an_error_when_a_schema_is_reviewed() -> None:
    result = run(text("ok"), schema=SCHEMA)
    assert result == ModelResult(
        text="the tool's structured result does not match its reviewed output schema: "
        "the server sent no structuredContent",
        is_error=True,
    )


def test_an_unusable_schema_is_an_error_result_not_an_exception() -> None:
    result = run(structured_content={"count": 1}, schema={"type": "no such type"})
    assert result.is_error and result.text.startswith("the tool's reviewed output schema cannot be used: ")


def test_validators_are_compiled_once_per_schema() -> None:
    validation._by_content.cache_clear()
    validation._by_identity.clear()
    run(structured_content={"count": 1}, schema=SCHEMA)
    run(structured_content={"count": 2}, schema=dict(reversed(SCHEMA.items())))  # same schema, other key order
    assert validation._by_content.cache_info()[:2] == (1, 1)  # (hits, misses)
    run(structured_content={"count": 3}, schema=SCHEMA)  # the same object: found by identity, not re-serialized
    assert validation._by_content.cache_info()[:2] == (1, 1)


def test_structured_content_without_schema_and_text_becomes_json() -> None:
    value = {"z": [1, None], "a": "ü"}
    assert run(structured_content=value) == ModelResult(text='{"z":[1,null],"a":"ü"}', structured=value)


def test_long_text_is_truncated_with_a_marker() -> None:
    long = "x" * 250
    result = normalize(
        types.CallToolResult(content=[text(long)]), output_schema=None, store=MediaStore(), max_chars=100
    )
    marker = "\n[truncated by mcpvend: showing 100 of 250 characters]"
    assert result.text == "x" * 100 + marker
    assert len(result.text) == 100 + len(marker)
    assert truncate("y" * 100, 100) == "y" * 100
    assert truncate("y" * (DEFAULT_MAX_CHARS + 1), DEFAULT_MAX_CHARS).endswith(
        f"[truncated by mcpvend: showing {DEFAULT_MAX_CHARS} of {DEFAULT_MAX_CHARS + 1} characters]"
    )
    assert error_result("e" * 30, max_chars=10) == ModelResult(
        text="e" * 10 + "\n[truncated by mcpvend: showing 10 of 30 characters]", is_error=True
    )


def test_truncate_without_a_limit() -> None:
    long = "z" * 50_000
    assert truncate(long, 0) == long
    assert truncate(long, -1) == long


def test_media_store_writes_each_content_once_to_a_file_named_by_digest(tmp_path: Path) -> None:
    directory = tmp_path / "media"
    store = MediaStore(directory)
    location = store.keep(PNG, "image/png")
    path = directory / f"{PNG_SHA}.png"
    assert location == str(path) and path.read_bytes() == PNG
    inode = path.stat().st_ino
    assert store.keep(PNG, "image/png") == location
    assert store.keep(PNG, "application/x-unknown") == location  # same bytes, same file
    assert path.stat().st_ino == inode
    assert sorted(p.name for p in directory.iterdir()) == [path.name]  # no temporary files left behind
    assert store.get(PNG_SHA) == PNG and MediaStore(directory).get(PNG_SHA) == PNG
    unknown = b"\x00\x01"
    assert store.keep(unknown, None) == str(directory / f"{hashlib.sha256(unknown).hexdigest()}.bin")
    result = run(types.ImageContent(type="image", data=PNG_B64, mime_type="image/png"), store=store)
    assert result.media[0].location == location and f'"location":{json.dumps(location)}' in result.text


def test_provider_shapes() -> None:
    result = ModelResult(text="done")
    assert result.openai_message("call_1") == {"role": "tool", "tool_call_id": "call_1", "content": "done"}
    assert result.anthropic_block("toolu_1") == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "done",
        "is_error": False,
    }


@pytest.mark.anyio
async def test_server_everything_tiny_image_becomes_a_reference() -> None:
    from conftest import node_server
    from mcpvend.runtime.client.connection import open_client
    from mcpvend.runtime.client.targets import StdioTarget

    entry = node_server("server-everything")
    async with open_client(StdioTarget(command="node", args=(str(entry), "stdio"))) as client:
        result = await client.call_tool("get-tiny-image", {})
    images = [block for block in result.content if isinstance(block, types.ImageContent)]
    assert len(images) == 1
    decoded = base64.b64decode(images[0].data)
    store = MediaStore()
    normalized = normalize(result, output_schema=None, store=store)
    assert not normalized.is_error
    assert [(ref.kind, ref.mime_type, ref.size) for ref in normalized.media] == [("image", "image/png", len(decoded))]
    assert normalized.media[0].sha256 == hashlib.sha256(decoded).hexdigest()
    assert store.get(normalized.media[0].sha256) == decoded and decoded.startswith(b"\x89PNG")
    lines = normalized.text.split("\n")
    assert lines[0] == "Here's the image you requested:" and lines[2] == "The image above is the MCP logo."
    assert lines[1] == f"[image: {json.dumps(normalized.media[0].describe(), separators=(',', ':'))}]"
    assert_no_base64(normalized.text, images[0].data)

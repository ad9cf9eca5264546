"""Generated models take null exactly where the reviewed schema does (issue 15, item 4).

A property that may be left out but is not nullable used to be `x: T | None = None`: the model
accepted None, sent it as null, and its JSON schema offered `null` (and `"default": null`) to any
LLM or framework reading it. Now such a field refuses None and its schema says `T` alone, while
the wrappers still take None for "not given".
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from pydantic import ValidationError

from conftest import PY, REPO, lock_documents, mcpvend, node_server
from session_builds import corpus_package

# Run where a generated package is importable: every property of every tool's input and output
# model, against its reviewed schema. Prints the mismatches as JSON, and how many were compared.
PROBE = """
import importlib, json, sys
import jsonschema
from pydantic import RootModel, ValidationError

package = importlib.import_module("generated")
found, compared = [], 0


def admits_null(root, schema):
    validator = jsonschema.validators.validator_for(root)(root)
    return validator.evolve(schema=schema).is_valid(None)


def check(where, reviewed, model):
    global compared
    if not isinstance(reviewed, dict) or issubclass(model, RootModel):
        return
    shown = model.model_json_schema()
    for key, schema in (reviewed.get("properties") or {}).items():
        compared += 1
        field = shown.get("properties", {}).get(key)
        try:
            model.model_validate({key: None}, by_alias=True, by_name=False)
            refused = False
        except ValidationError as exc:
            refused = any(error["loc"][:1] == (key,) for error in exc.errors())
        nullable = admits_null(reviewed, schema)
        shown_nullable = field is not None and admits_null(shown, field)
        null_default = field is not None and "default" in field and field["default"] is None
        if refused == nullable or shown_nullable != nullable or (null_default and not nullable):
            found.append({"where": f"{where}/{key}", "nullable": nullable, "model refuses None": refused,
                          "model schema": field})


for server in package.SERVERS:
    sub = importlib.import_module(f"generated.{server}")
    for tool in sub.TOOLS:
        check(f"{server}/{tool.name}/input", tool.input_schema, tool.input_model)
        if tool.output_model is not None:
            check(f"{server}/{tool.name}/output", tool.output_schema, tool.output_model)
print(json.dumps({"mismatches": found, "compared": compared}))
"""


def probe(root: Path) -> dict[str, object]:
    run = subprocess.run([PY, "-c", PROBE], cwd=root, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    result: dict[str, object] = json.loads(run.stdout)
    return result


def test_the_golden_models_take_null_exactly_where_the_reviewed_schemas_do() -> None:
    result = probe(REPO)
    assert result["mismatches"] == []
    assert isinstance(result["compared"], int) and result["compared"] > 60


def test_the_corpus_models_take_null_exactly_where_the_reviewed_schemas_do(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """All 527 tools of the 70 corpus servers: their optional properties are almost all not nullable."""
    root, run = corpus_package(tmp_path_factory)  # generated once per session, shared with test_user_env
    assert run.code == 0 and "(70 servers, 527 tools)" in run.err, run.err
    result = probe(root)
    assert result["mismatches"] == []
    assert isinstance(result["compared"], int) and result["compared"] > 1500


def test_an_optional_property_that_is_not_nullable_is_typed_left_out_or_a_value() -> None:
    from generated import from_wire
    from generated.filesystem.models import ListDirectoryWithSizesInput, ReadTextFileInput

    assert ReadTextFileInput.model_json_schema()["properties"]["head"] == {
        "description": "If provided, returns only the first N lines of the file",
        "title": "Head",
        "type": "number",
    }
    sort_by = ListDirectoryWithSizesInput.model_json_schema()["properties"]["sortBy"]
    assert sort_by == {
        "default": "name",
        "description": "Sort entries by name or size",
        "enum": ["name", "size"],
        "title": "Sortby",
        "type": "string",
    }
    left_out = ReadTextFileInput(path="a.txt")
    assert left_out.head is None and left_out.model_fields_set == {"path"}
    assert left_out.model_dump(by_alias=True, exclude_unset=True) == {"path": "a.txt"}
    for model, key in ((ReadTextFileInput, "head"), (ListDirectoryWithSizesInput, "sortBy")):
        with pytest.raises(ValidationError, match=key):
            from_wire(model, {"path": "a.txt", key: None})
    with pytest.raises(ValidationError):
        ReadTextFileInput(path="a.txt", head=None)


def test_none_never_reaches_the_server_and_the_wrappers_still_take_it_for_not_given() -> None:
    """server-filesystem (zod) rejects `head: null`; the model now refuses it before anything is sent."""
    node_server("server-filesystem")
    from generated import filesystem
    from generated.filesystem.models import ReadTextFileInput

    async def main() -> tuple[str, str, str]:
        async with filesystem.connect(cwd=str(REPO)) as tools:
            path = str(REPO / "tests" / "fixtures" / "files" / "hello.txt")
            whole = await tools.read_text_file(path=path, head=None, tail=None)  # None: not given
            with pytest.raises(ValidationError, match="head"):
                await tools.read_text_file(ReadTextFileInput(path=path, head=None))
            first = await tools.read_text_file(ReadTextFileInput(path=path, head=1))
            # sortBy has a default, so its model field is typed without None; the wrapper still takes it
            listing = await tools.list_directory_with_sizes(path=str(Path(path).parent), sort_by=None)
            return whole.content, first.content, listing.content

    whole, first, listing = anyio.run(main)
    assert (whole, first) == ("hello from mcpvend\n", "hello from mcpvend")
    assert "hello.txt" in listing


def test_the_rewrite_keeps_a_property_named_like_the_marker_apart(tmp_path: Path) -> None:
    """A class body evaluates defaults in its own namespace: a field `not_nullable` must not shadow the marker."""
    tools = [
        {
            "name": "t",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "not_nullable": {"type": "string"},
                    "MISSING": {"type": "integer"},
                    "later": {"type": "boolean"},
                },
            },
        }
    ]
    lock_documents(tmp_path, {"s": tools})
    assert mcpvend("generate", cwd=tmp_path).code == 0
    script = (
        "from generated.s.models import TInput as M\n"
        "print(M(later=True).model_dump(exclude_unset=True), sorted(M.model_json_schema()['properties'].values(),"
        " key=str))\n"
    )
    shutil.rmtree(tmp_path / "lockfiles")
    run = subprocess.run([PY, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == (
        "{'later': True} [{'title': 'Later', 'type': 'boolean'}, {'title': 'Missing', 'type': 'integer'},"
        " {'title': 'Not Nullable', 'type': 'string'}]"
    )

"""The OpenAI Agents SDK runs the toolset as one in-process MCP server, driven by the SDK's own
ScriptedModel against the real servers: routed discovery lists the found tool on the next turn,
errors reach the model, strict schemas are sent strict, and destructive tools wait for approval."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import generated
import pytest

from conftest import SERVERS, node_server

# The Agents SDK is imported inside the tests, not here: every xdist worker collects this module but
# only one runs it, and importing the SDK costs seconds of CPU.
if TYPE_CHECKING:
    from agents import FunctionTool
    from agents.agent import MCPConfig
    from agents.mcp import ToolFilterContext, ToolFilterStatic
    from agents.testing import ModelCall, ModelStep
    from mcp.types import Tool as MCPTool

pytestmark = pytest.mark.anyio
META = {"search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"}


@pytest.fixture(autouse=True, scope="module")
def _no_tracing() -> None:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)  # no OpenAI key: the SDK would try to export traces


def tools(call: ModelCall) -> dict[str, FunctionTool]:
    from agents import FunctionTool

    return {t.name: t for t in call.tools if isinstance(t, FunctionTool)}


def last_output(call: ModelCall) -> str:
    """The text of the last tool result the model was given."""
    item = next(i for i in reversed(call.input) if isinstance(i, dict) and i.get("type") == "function_call_output")
    output = item["output"]
    return output if isinstance(output, str) else "".join(part["text"] for part in output)


def step(respond: Any) -> ModelStep:
    from agents.testing import ModelStep

    return ModelStep.respond(respond)


async def test_routed_search_lists_the_found_tool_next_turn_and_errors_reach_the_model() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def search(call: ModelCall) -> Any:
        assert set(tools(call)) == META
        return [function_call("search_tools", {"query": "current time in a timezone", "limit": 3}, call_id="c1")]

    def call_wrongly(call: ModelCall) -> Any:
        found = json.loads(last_output(call))["tools"][0]["name"]
        assert found == "time__get_current_time" and found in tools(call)
        return [function_call(found, {"tz": "Europe/Paris"}, call_id="c2")]

    def recover(call: ModelCall) -> Any:
        text = last_output(call)
        assert "'timezone' is a required property" in text and "Its input schema:" in text
        return [function_call("time__get_current_time", {"timezone": "Europe/Paris"}, call_id="c3")]

    def server_error(call: ModelCall) -> Any:
        assert json.loads(last_output(call))["timezone"] == "Europe/Paris"
        return [
            function_call(
                "call_tool", {"name": "demo__airports_find-by-code_b73eb4", "arguments": {"code": "ZZZ"}}, call_id="c4"
            )
        ]

    def finish(call: ModelCall) -> Any:
        assert "unknown airport code ZZZ" in last_output(call)
        return [assistant_message("done")]

    model = ScriptedModel([step(search), step(call_wrongly), step(recover), step(server_error), step(finish)])
    async with generated.toolset(["time", "demo", "everything"], mode="routed") as ts:
        node_server("server-everything")
        agent = Agent(name="assistant", model=model, mcp_servers=[ts.for_openai_agents()])
        result = await Runner.run(agent, "What time is it in Paris, and where is ZZZ?")
        assert ts.materialized == ()  # the server object is a view of its own
    assert result.final_output == "done"
    model.assert_complete()


async def test_strict_schemas_are_sent_strict_and_nulls_are_undone() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def convert(call: ModelCall) -> Any:
        tool = tools(call)["demo__convert_temperature"]
        assert tool.strict_json_schema is True
        assert tool.params_json_schema["additionalProperties"] is False
        assert set(tool.params_json_schema["required"]) == {"value", "to"}
        return [function_call("demo__convert_temperature", {"value": 100, "to": None}, call_id="c1")]

    def finish(call: ModelCall) -> Any:
        assert last_output(call) == "100.00 celsius"  # the null placeholder was dropped: the default applied
        return [assistant_message("done")]

    model = ScriptedModel([step(convert), step(finish)])
    async with generated.toolset(["demo"], mode="direct") as ts, ts.for_openai_agents(strict=True) as server:
        agent = Agent(
            name="assistant",
            model=model,
            mcp_servers=[server],  # entered as the SDK's own servers are
            mcp_config={"convert_schemas_to_strict": True},
        )
        result = await Runner.run(agent, "100 C in C?")
    assert result.final_output == "done"
    model.assert_complete()


async def test_destructive_tools_wait_for_approval() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    cancel = "demo__cancel_booking"

    def read_then_destroy(call: ModelCall) -> Any:
        return [
            function_call("demo__convert_temperature", {"value": 0}, call_id="c1"),  # read-only: runs at once
            function_call(cancel, {"reference": "ABC123"}, call_id="c2"),
        ]

    def finish(call: ModelCall) -> Any:
        assert "ABC123" in last_output(call)
        return [assistant_message("done")]

    model = ScriptedModel([step(read_then_destroy), step(finish)])
    async with generated.toolset(["demo"], mode="direct") as ts:
        server = ts.for_openai_agents(require_approval="destructive")
        agent = Agent(name="assistant", model=model, mcp_servers=[server])
        paused = await Runner.run(agent, "cancel booking ABC123")
        assert [item.tool_name for item in paused.interruptions] == [cancel]
        state = paused.to_state()
        state.approve(paused.interruptions[0])
        result = await Runner.run(agent, state)
    assert result.final_output == "done"
    model.assert_complete()


async def test_call_tool_cannot_reach_a_tool_that_needs_approval() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    cancel = "demo__cancel_booking"

    def through_call_tool(call: ModelCall) -> Any:
        assert cancel not in tools(call)
        return [function_call("call_tool", {"name": cancel, "arguments": {"reference": "ABC123"}}, call_id="c1")]

    def by_name(call: ModelCall) -> Any:
        assert "needs the user's approval" in last_output(call) and cancel in tools(call)
        return [function_call(cancel, {"reference": "ABC123"}, call_id="c2")]

    def finish(call: ModelCall) -> Any:
        assert "ABC123" in last_output(call) and cancel in tools(call)  # the resumed run is the same conversation
        return [assistant_message("done")]

    model = ScriptedModel([step(through_call_tool), step(by_name), step(finish)])
    async with generated.toolset(["demo"], mode="routed") as ts:
        agent = Agent(name="assistant", model=model, mcp_servers=[ts.for_openai_agents(require_approval="always")])
        paused = await Runner.run(agent, "cancel booking ABC123")
        assert [item.tool_name for item in paused.interruptions] == [cancel]
        state = paused.to_state()
        state.approve(paused.interruptions[0])
        result = await Runner.run(agent, state)
    assert result.final_output == "done"
    model.assert_complete()


async def test_a_name_not_listed_gets_mcpvends_answer_with_the_run_config_helper() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def unsearched(call: ModelCall) -> Any:
        assert "time__get_current_time" not in tools(call)
        return [function_call("time__get_current_time", {"timezone": "UTC"}, call_id="c1")]  # never searched

    def by_name(call: ModelCall) -> Any:
        assert last_output(call).startswith("'time__get_current_time' is now among your tools")
        assert "time__get_current_time" in tools(call)  # listed from this turn on
        return [function_call("time__get_current_time", {"timezone": "UTC"}, call_id="c2")]

    def misspelled(call: ModelCall) -> Any:
        assert json.loads(last_output(call))["timezone"] == "UTC"
        return [function_call("get_curent_time", {"timezone": "UTC"}, call_id="c3")]

    def finish(call: ModelCall) -> Any:
        text = last_output(call)
        assert "did you mean time__get_current_time" in text and "demo__" not in text  # not the catalog
        return [assistant_message("done")]

    model = ScriptedModel([step(unsearched), step(by_name), step(misspelled), step(finish)])
    async with generated.toolset(["time", "demo"], mode="routed") as ts, ts.for_openai_agents() as server:
        agent = Agent(name="assistant", model=model, mcp_servers=[server])
        result = await Runner.run(agent, "What time is it in UTC?", run_config=server.run_config())
    assert result.final_output == "done"
    model.assert_complete()


async def test_without_the_helper_the_sdk_ends_the_run_on_a_name_not_listed() -> None:
    from agents import Agent, ModelBehaviorError, Runner
    from agents.testing import ScriptedModel, function_call

    def unsearched(call: ModelCall) -> Any:
        return [function_call("time__get_current_time", {"timezone": "UTC"}, call_id="c1")]

    model = ScriptedModel([step(unsearched)])
    async with generated.toolset(["time"], mode="routed") as ts, ts.for_openai_agents() as server:
        agent = Agent(name="assistant", model=model, mcp_servers=[server])
        with pytest.raises(ModelBehaviorError, match="time__get_current_time"):
            await Runner.run(agent, "What time is it in UTC?")


def output(call: ModelCall, call_id: str) -> str:
    """The text of the tool result the model was given for one call."""
    item = next(i for i in call.input if isinstance(i, dict) and i.get("call_id") == call_id and "output" in i)
    text = item["output"]
    return text if isinstance(text, str) else "".join(part["text"] for part in text)


async def test_with_server_prefixed_names_mcpvend_speaks_the_names_the_sdk_shows() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    shown = "mcp_mcpvend__time__get_current_time"

    def search(call: ModelCall) -> Any:
        assert set(tools(call)) == {f"mcp_mcpvend__{name}" for name in META}
        return [function_call("mcp_mcpvend__search_tools", {"query": "current time in a timezone"}, call_id="c1")]

    def call_found(call: ModelCall) -> Any:
        found = json.loads(last_output(call))["tools"][0]["name"]
        assert found == shown and found in tools(call)
        through = {"name": "mcp_mcpvend__demo__convert_temperature", "arguments": {"value": 100, "to": "fahrenheit"}}
        return [
            function_call(found, {"timezone": "UTC"}, call_id="c2"),
            function_call("mcp_mcpvend__call_tool", through, call_id="c3"),
            function_call("mcp_mcpvend__get_tool_schema", {"name": "convert_temprature"}, call_id="c4"),
        ]

    def finish(call: ModelCall) -> Any:
        assert json.loads(output(call, "c2"))["timezone"] == "UTC"
        assert output(call, "c3") == "212.00 fahrenheit"
        assert "did you mean mcp_mcpvend__demo__convert_temperature" in output(call, "c4")
        return [assistant_message("done")]

    model = ScriptedModel([step(search), step(call_found), step(finish)])
    async with generated.toolset(["time", "demo"], mode="routed") as ts, ts.for_openai_agents() as server:
        agent = Agent(
            name="assistant", model=model, mcp_servers=[server], mcp_config={"include_server_in_tool_names": True}
        )
        result = await Runner.run(agent, "What time is it in UTC?", max_turns=3)
    assert result.final_output == "done"
    model.assert_complete()


async def test_a_prefixed_name_not_listed_gets_mcpvends_answer_in_the_sdks_names() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def unsearched(call: ModelCall) -> Any:
        return [function_call("mcp_mcpvend__time__get_current_time", {"timezone": "UTC"}, call_id="c1")]

    def by_name(call: ModelCall) -> Any:
        assert last_output(call).startswith("'mcp_mcpvend__time__get_current_time' is now among your tools")
        assert "mcp_mcpvend__time__get_current_time" in tools(call)
        return [assistant_message("done")]

    model = ScriptedModel([step(unsearched), step(by_name)])
    async with generated.toolset(["time"], mode="routed") as ts, ts.for_openai_agents() as server:
        agent = Agent(
            name="assistant", model=model, mcp_servers=[server], mcp_config={"include_server_in_tool_names": True}
        )
        await Runner.run(agent, "What time is it in UTC?", run_config=server.run_config())
    model.assert_complete()


async def test_two_runs_of_one_agent_do_not_share_found_tools_and_a_continued_one_finds_them_again() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    found = "time__get_current_time"

    def search(call: ModelCall) -> Any:
        return [function_call("search_tools", {"query": "current time in a timezone", "limit": 1}, call_id="c1")]

    def listed(call: ModelCall) -> Any:
        assert found in tools(call)
        return [assistant_message("found")]

    def other_user(call: ModelCall) -> Any:
        assert set(tools(call)) == META  # user A's search is not user B's
        return [assistant_message("nothing found")]

    def continued(call: ModelCall) -> Any:
        assert found in tools(call)  # the history it was given found it
        return [assistant_message("still found")]

    model = ScriptedModel([step(search), step(listed), step(other_user), step(continued)])
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        agent = Agent(name="assistant", model=model, mcp_servers=[ts.for_openai_agents()])  # built once, at start-up
        first = await Runner.run(agent, "user A: what time is it?")
        await Runner.run(agent, "user B: hello")
        await Runner.run(agent, [*first.to_input_list(), {"role": "user", "content": "user A: and now?"}])
    model.assert_complete()


async def test_list_tools_keeps_what_the_sdks_own_server_keeps() -> None:
    from agents.mcp import MCPServerStdio

    own = MCPServerStdio({"command": sys.executable, "args": [str(SERVERS / "demo.py")]}, name="demo")
    async with own, generated.toolset(["demo"], mode="direct") as ts, ts.for_openai_agents() as server:
        theirs = {tool.name: tool for tool in await own.list_tools()}["convert_temperature"]
        ours = {tool.name: tool for tool in await server.list_tools()}["demo__convert_temperature"]
    assert ours.output_schema is not None and ours.output_schema == theirs.output_schema
    assert ours.title == theirs.title and ours.annotations == theirs.annotations


@pytest.mark.parametrize(("use", "expected"), [(False, "212.00 fahrenheit"), (True, '{"result": "212.00 fahrenheit"}')])
async def test_use_structured_content_hands_the_model_the_structured_result(use: bool, expected: str) -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def convert(call: ModelCall) -> Any:
        return [function_call("demo__convert_temperature", {"value": 100, "to": "fahrenheit"}, call_id="c1")]

    def finish(call: ModelCall) -> Any:
        assert last_output(call) == expected
        return [assistant_message("done")]

    model = ScriptedModel([step(convert), step(finish)])
    async with generated.toolset(["demo"], mode="direct") as ts:
        agent = Agent(name="assistant", model=model, mcp_servers=[ts.for_openai_agents(use_structured_content=use)])
        await Runner.run(agent, "100 C in F?")
    model.assert_complete()


async def test_a_static_tool_filter_lists_only_the_allowed_tools() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message

    def listed(call: ModelCall) -> Any:
        assert set(tools(call)) == {"demo__convert_temperature"}
        return [assistant_message("done")]

    model = ScriptedModel([step(listed)])
    tool_filter: ToolFilterStatic = {
        "allowed_tool_names": ["demo__convert_temperature", "demo__cancel_booking"],
        "blocked_tool_names": ["demo__cancel_booking"],
    }
    async with generated.toolset(["demo"], mode="direct") as ts:
        agent = Agent(name="assistant", model=model, mcp_servers=[ts.for_openai_agents(tool_filter=tool_filter)])
        await Runner.run(agent, "100 C in F?")
    model.assert_complete()


async def test_a_tool_filter_also_keeps_call_tool_and_the_run_config_from_the_tools_it_hides() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    cancel = "demo__cancel_booking"

    def not_destructive(context: ToolFilterContext, tool: MCPTool) -> bool:
        assert context.server_name == "mcpvend"
        return tool.annotations is None or tool.annotations.destructive_hint is not True

    def through_call_tool(call: ModelCall) -> Any:
        return [function_call("call_tool", {"name": cancel, "arguments": {"reference": "ABC123"}}, call_id="c1")]

    def by_name(call: ModelCall) -> Any:
        assert last_output(call) == f"'{cancel}' is not among your tools"
        return [function_call(cancel, {"reference": "ABC123"}, call_id="c2")]

    def finish(call: ModelCall) -> Any:
        assert last_output(call) == f"'{cancel}' is not among your tools" and cancel not in tools(call)
        return [assistant_message("done")]

    model = ScriptedModel([step(through_call_tool), step(by_name), step(finish)])
    async with (
        generated.toolset(["demo"], mode="routed") as ts,
        ts.for_openai_agents(tool_filter=not_destructive) as server,
    ):
        agent = Agent(name="assistant", model=model, mcp_servers=[server])
        result = await Runner.run(agent, "cancel booking ABC123", run_config=server.run_config())
    assert result.final_output == "done"
    model.assert_complete()


async def test_cache_tools_list_keeps_each_tool_and_still_lists_what_the_run_found() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    found = "time__get_current_time"

    def search(call: ModelCall) -> Any:
        return [function_call("search_tools", {"query": "current time in a timezone", "limit": 1}, call_id="c1")]

    def listed(call: ModelCall) -> Any:
        assert found in tools(call)
        return [assistant_message("done")]

    model = ScriptedModel([step(search), step(listed)])
    async with generated.toolset(["time"], mode="routed") as ts:
        cached, uncached = ts.for_openai_agents(cache_tools_list=True), ts.for_openai_agents()
        await Runner.run(Agent(name="assistant", model=model, mcp_servers=[cached]), "What time is it?")
        await uncached.list_tools()
        assert uncached.cached_tools is None
        assert {tool.name for tool in cached.cached_tools or []} == {*META, found}
        cached.invalidate_tools_cache()
        assert cached.cached_tools is None
    model.assert_complete()


async def test_a_prefixed_name_longer_than_the_sdk_allows_is_spoken_as_the_sdk_cuts_it() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def search(call: ModelCall) -> Any:
        (search_tools,) = [name for name in tools(call) if "search_tools" in name]
        return [function_call(search_tools, {"query": "current time in a timezone", "limit": 1}, call_id="c1")]

    def listed(call: ModelCall) -> Any:
        found = json.loads(last_output(call))["tools"][0]["name"]
        assert len(found) == 64 and found in tools(call)
        return [assistant_message("done")]

    model = ScriptedModel([step(search), step(listed)])
    async with generated.toolset(["time"], mode="routed") as ts:
        server = ts.for_openai_agents(name="the-travel-desk-tools-of-the-whole-company")
        mcp_config: MCPConfig = {"include_server_in_tool_names": True}
        agent = Agent(name="assistant", model=model, mcp_servers=[server], mcp_config=mcp_config)
        await Runner.run(agent, "What time is it?")
    model.assert_complete()

"""The OpenAI Agents SDK runs the toolset as one in-process MCP server, driven by the SDK's own
ScriptedModel against the real servers: routed discovery lists the found tool on the next turn,
errors reach the model, strict schemas are sent strict, and destructive tools wait for approval."""

from __future__ import annotations

import json
from typing import Any

import generated
import pytest
from agents import Agent, FunctionTool, ModelBehaviorError, Runner, set_tracing_disabled
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

from conftest import node_server

set_tracing_disabled(True)  # no OpenAI key: the SDK would try to export traces

pytestmark = pytest.mark.anyio
META = {"search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"}


def tools(call: ModelCall) -> dict[str, FunctionTool]:
    return {t.name: t for t in call.tools if isinstance(t, FunctionTool)}


def last_output(call: ModelCall) -> str:
    """The text of the last tool result the model was given."""
    item = next(i for i in reversed(call.input) if isinstance(i, dict) and i.get("type") == "function_call_output")
    output = item["output"]
    return output if isinstance(output, str) else "".join(part["text"] for part in output)


def step(respond: Any) -> ModelStep:
    return ModelStep.respond(respond)


async def test_routed_search_lists_the_found_tool_next_turn_and_errors_reach_the_model() -> None:
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
    cancel = "demo__cancel_booking"

    def through_call_tool(call: ModelCall) -> Any:
        assert cancel not in tools(call)
        return [function_call("call_tool", {"name": cancel, "arguments": {"reference": "ABC123"}}, call_id="c1")]

    def by_name(call: ModelCall) -> Any:
        assert "needs the user's approval" in last_output(call) and cancel in tools(call)
        return [function_call(cancel, {"reference": "ABC123"}, call_id="c2")]

    model = ScriptedModel([step(through_call_tool), step(by_name)])
    async with generated.toolset(["demo"], mode="routed") as ts:
        agent = Agent(name="assistant", model=model, mcp_servers=[ts.for_openai_agents(require_approval="always")])
        paused = await Runner.run(agent, "cancel booking ABC123")
    assert [item.tool_name for item in paused.interruptions] == [cancel]
    model.assert_complete()


async def test_a_name_not_listed_gets_mcpvends_answer_with_the_run_config_helper() -> None:
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
    def unsearched(call: ModelCall) -> Any:
        return [function_call("time__get_current_time", {"timezone": "UTC"}, call_id="c1")]

    model = ScriptedModel([step(unsearched)])
    async with generated.toolset(["time"], mode="routed") as ts, ts.for_openai_agents() as server:
        agent = Agent(name="assistant", model=model, mcp_servers=[server])
        with pytest.raises(ModelBehaviorError, match="time__get_current_time"):
            await Runner.run(agent, "What time is it in UTC?")

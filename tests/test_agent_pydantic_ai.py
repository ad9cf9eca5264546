"""pydantic-ai's own agent loop, driven by its `FunctionModel`, over real servers through `for_pydantic_ai()`.

Each scripted step reads only what pydantic-ai gives a model (the messages and the tool
definitions of that step) and asserts on it before it answers, so a tool listed a step late, a
retry without the schema or an error that never reached the model fails the run.
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any

import pytest

from conftest import REPO

# pydantic-ai is imported inside the tests that use it: every xdist worker collects this module but only
# one runs it, and importing pydantic-ai costs seconds of CPU.
if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic_ai import ModelMessage, ModelResponse, RunContext
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    Step = Callable[[list[ModelMessage], AgentInfo], ModelResponse]

pytestmark = pytest.mark.anyio
generated: Any = importlib.import_module("generated")
ROUTED = {"search_tools", "call_tool"}  # pydantic-ai's tool search, and mcpvend's call_tool
CONVERT = "demo__convert_temperature"


def call(name: str, arguments: dict[str, Any]) -> ModelResponse:
    from pydantic_ai import ModelResponse, ToolCallPart

    return ModelResponse(parts=[ToolCallPart(name, arguments)])


def done(text: str = "done") -> ModelResponse:
    from pydantic_ai import ModelResponse, TextPart

    return ModelResponse(parts=[TextPart(text)])


def listed(info: AgentInfo) -> set[str]:
    return {tool.name for tool in info.function_tools}


def last_part(messages: list[ModelMessage]) -> Any:
    """The last tool result or retry prompt (pydantic-ai may add a note on newly listed tools after it)."""
    from pydantic_ai import ToolReturnPart

    return next(p for p in reversed(messages[-1].parts) if isinstance(p, ToolReturnPart))


def retried(part: Any) -> str:
    """The feedback of a call the model must make again (a ModelRetry, or arguments that failed validation)."""
    from pydantic_ai import ToolReturnPart

    assert isinstance(part, ToolReturnPart) and part.outcome == "retried", part
    return part.model_response_str()


class Script:
    """A FunctionModel that plays the steps in order and records the tools each step was offered."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.offered: list[set[str]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append(listed(info))
        return self.steps.pop(0)(messages, info)

    def model(self) -> FunctionModel:
        from pydantic_ai.models.function import FunctionModel

        return FunctionModel(self)


async def test_routed_hands_pydantic_ai_the_catalog_deferred_for_its_tool_search_with_mcpvend_ranking() -> None:
    from pydantic_ai import Agent, ToolReturnPart

    def search(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert listed(info) == ROUTED  # routed: the catalog is deferred, only call_tool and the search listed
        return call("search_tools", {"queries": ["current time in a timezone"]})

    def call_wrongly(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        found = [match["name"] for match in last_part(messages).content["discovered_tools"]]
        assert found[0] == "time__get_current_time"  # ranked by mcpvend: the best match first
        assert found[0] in listed(info)  # pydantic-ai lists what its search found
        return call(found[0], {"tz": "Europe/Paris"})  # the wrong property name

    def recover(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = retried(last_part(messages))
        assert "'timezone' is a required property" in text and "Its input schema:" in text
        return call("time__get_current_time", {"timezone": "Europe/Paris"})

    def unsearched(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        result = last_part(messages)
        assert isinstance(result, ToolReturnPart) and json.loads(result.content)["timezone"] == "Europe/Paris"
        assert CONVERT not in listed(info)
        return call(CONVERT, {"value": 100, "to": "fahrenheit"})  # a real name, never searched for

    def misspelled(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert last_part(messages).content == "212.00 fahrenheit"
        assert CONVERT in listed(info)  # reached through call_tool, and shown to the model from now on
        return call("get_curent_time", {"timezone": "UTC"})

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = retried(last_part(messages))
        assert "did you mean time__get_current_time" in text and "demo__" not in text  # not the catalog
        return done()

    script = Script(search, call_wrongly, recover, unsearched, misspelled, finish)
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        toolset = ts.for_pydantic_ai()
        agent = Agent(script.model(), toolsets=[toolset], capabilities=[toolset.tool_search()])
        result = await agent.run("What time is it in Paris, and 100 C in F?")
    assert result.output == "done" and not script.steps
    returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    structured = [p.metadata for p in returns if p.tool_name == "time__get_current_time" and p.outcome == "success"]
    assert structured and structured[0]["timezone"] == "Europe/Paris"  # the structured result, beside the text


async def test_without_mcpvend_search_pydantic_ai_search_still_finds_and_refuses_an_unsearched_name() -> None:
    from pydantic_ai import Agent

    def unsearched(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert listed(info) == {"call_tool"}  # FunctionModel has pydantic-ai's native search: withheld tools
        return call("time__get_current_time", {"timezone": "UTC"})

    def through_call_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert "search for it first" in retried(last_part(messages))  # pydantic-ai's own answer, no catalog
        return call("call_tool", {"name": "get_current_time", "arguments": {"timezone": "UTC"}})  # a bare name

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert json.loads(last_part(messages).content)["timezone"] == "UTC"
        assert "time__get_current_time" in listed(info)  # revealed by the call
        return done()

    script = Script(unsearched, through_call_tool, finish)
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        result = await Agent(script.model(), toolsets=[ts.for_pydantic_ai()]).run("time in UTC?")
    assert result.output == "done" and not script.steps


@pytest.mark.parametrize("mode", ["direct", "compact"])
async def test_direct_and_compact_modes_list_every_tool_and_recover_from_invalid_arguments(mode: str) -> None:
    from pydantic_ai import Agent

    def call_without_arguments(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert {"time__get_current_time", "time__convert_time"} <= listed(info)
        assert ("get_tool_schema" in listed(info)) == (mode == "compact")
        tool = next(t for t in info.function_tools if t.name == "time__get_current_time")
        if mode == "compact":  # a placeholder that says it is open, so no framework closes it
            assert tool.parameters_json_schema == {"type": "object", "additionalProperties": True}
        return call("time__get_current_time", {})

    def recover(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert "'timezone' is a required property" in retried(last_part(messages))
        return call("time__get_current_time", {"timezone": "Asia/Tokyo"})

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert json.loads(last_part(messages).content)["timezone"] == "Asia/Tokyo"
        return done()

    script = Script(call_without_arguments, recover, finish)
    async with generated.toolset(["time"], mode=mode) as ts:
        result = await Agent(script.model(), toolsets=[ts.for_pydantic_ai()]).run("time in Tokyo?")
    assert result.output == "done" and not script.steps


async def test_each_run_has_its_own_found_tools_and_a_continued_conversation_keeps_them() -> None:
    from pydantic_ai import Agent

    found = "time__get_current_time"

    def search(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return call("search_tools", {"queries": ["current time in a timezone"]})

    def check_found(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert found in listed(info)
        return done()

    def check_fresh(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert listed(info) == ROUTED
        return done()

    script = Script(search, check_found, check_fresh, check_found)
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        toolset = ts.for_pydantic_ai()
        agent = Agent(script.model(), toolsets=[toolset], capabilities=[toolset.tool_search(max_results=1)])
        first = await agent.run("what time is it?")
        await agent.run("another conversation")  # the same agent: this run has found nothing
        await agent.run("and now?", message_history=first.all_messages())  # the first conversation, continued
        assert ts.materialized == ()  # the runs' views found the tool, not the toolset
    assert not script.steps and script.offered[1] == script.offered[3] == ROUTED | {found}


async def test_destructive_tools_wait_for_approval_and_call_tool_sends_the_model_to_them() -> None:
    from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolReturnPart

    cancel = "demo__cancel_booking"

    def through_call_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert cancel not in listed(info)
        return call("call_tool", {"name": cancel, "arguments": {"reference": "ABC123"}})

    def by_name(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert "needs the user's approval" in retried(last_part(messages))
        assert cancel in listed(info)
        return call(cancel, {"reference": "ABC123"})

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        result = last_part(messages)
        assert isinstance(result, ToolReturnPart) and "ABC123" in result.content
        return done()

    script = Script(through_call_tool, by_name, finish)
    async with generated.toolset(["demo"], mode="routed") as ts:
        toolset = ts.for_pydantic_ai(require_approval="destructive")
        agent = Agent(script.model(), toolsets=[toolset], output_type=[str, DeferredToolRequests])
        paused = await agent.run("cancel booking ABC123")
        requests = paused.output
        assert isinstance(requests, DeferredToolRequests)
        (approval,) = requests.approvals
        assert approval.tool_name == cancel and requests.metadata[approval.tool_call_id]["tool"] == "cancel_booking"
        approved = DeferredToolResults(approvals={approval.tool_call_id: True})
        result = await agent.run(message_history=paused.all_messages(), deferred_tool_results=approved)
    assert result.output == "done" and not script.steps


async def test_a_read_only_tool_needs_no_approval_and_strict_definitions_are_marked() -> None:
    from pydantic_ai import Agent

    def convert(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        strict = {t.name: t.strict for t in info.function_tools}
        assert strict["demo__convert_temperature"] is True
        schema = next(t for t in info.function_tools if t.name == "demo__convert_temperature").parameters_json_schema
        assert schema["additionalProperties"] is False and set(schema["required"]) == {"value", "to"}
        return call("demo__convert_temperature", {"value": 100, "to": None})  # strict's placeholder null

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert last_part(messages).content == "100.00 celsius"  # the null was dropped: the default unit
        return done()

    script = Script(convert, finish)
    async with generated.toolset(["demo"], mode="direct") as ts:
        toolset = ts.for_pydantic_ai(strict=True, require_approval="destructive")
        result = await Agent(script.model(), toolsets=[toolset]).run("100 C in C")
    assert result.output == "done" and not script.steps


async def test_code_mode_offers_run_code_and_the_agent_runs_it() -> None:
    from pydantic_ai import Agent

    code = "now = await time__get_current_time(timezone='Asia/Tokyo')\nnow['timezone']"

    def write_code(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert listed(info) == {"run_code"}
        assert "async def time__get_current_time(" in info.function_tools[0].description
        return call("run_code", {"code": code})

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        result = last_part(messages)
        assert result.outcome == "success" and "Asia/Tokyo" in result.content
        return done()

    script = Script(write_code, finish)
    async with generated.toolset(["time"], mode="code") as ts:
        result = await Agent(script.model(), toolsets=[ts.for_pydantic_ai()]).run("time in Tokyo?")
    assert result.output == "done" and not script.steps


async def test_routed_counts_retries_per_tool_the_model_named_not_pooled_under_call_tool() -> None:
    from pydantic_ai import Agent, UnexpectedModelBehavior

    def bad_convert(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return call(CONVERT, {"value": "hot"})  # unsearched, so run through call_tool, with wrong arguments

    def bad_name(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert f"invalid arguments for {CONVERT}" in retried(last_part(messages))
        return call("get_curent_time", {"timezone": "UTC"})  # a second tool, through call_tool as well

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert "no tool named 'get_curent_time'" in retried(last_part(messages))
        return done()

    def bad_convert_again(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert f"invalid arguments for {CONVERT}" in retried(last_part(messages))
        return call(CONVERT, {"value": "still hot"})

    two_tools = Script(bad_convert, bad_name, finish)
    one_tool = Script(bad_convert, bad_convert_again)
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        toolset = ts.for_pydantic_ai()
        for script in (two_tools, one_tool):
            agent = Agent(script.model(), toolsets=[toolset], capabilities=[toolset.tool_search()], retries=1)
            if script is two_tools:
                assert (await agent.run("convert, then the time")).output == "done"  # one retry each
            else:
                with pytest.raises(UnexpectedModelBehavior, match=f"Tool '{CONVERT}' exceeded max retries count of 1"):
                    await agent.run("convert twice")
            assert not script.steps


async def test_a_prefixed_toolset_is_searched_and_called_by_its_prefixed_names() -> None:
    from pydantic_ai import Agent

    current = "x_time__get_current_time"

    def search(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert listed(info) == {"search_tools", "x_call_tool"}
        return call("search_tools", {"queries": ["current time in a timezone"]})

    def call_found(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        found = [match["name"] for match in last_part(messages).content["discovered_tools"]]
        assert found[0] == current and current in listed(info)  # mcpvend's ranking, under the prefixed name
        return call(current, {"timezone": "Europe/Paris"})

    def unsearched(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert json.loads(last_part(messages).content)["timezone"] == "Europe/Paris"
        return call(f"x_{CONVERT}", {"value": 100, "to": "fahrenheit"})  # listed, not searched for

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        result = last_part(messages)
        assert result.tool_name == "x_call_tool" and result.content == "212.00 fahrenheit"
        assert f"x_{CONVERT}" in listed(info)  # revealed under the name the model calls it by
        return done()

    script = Script(search, call_found, unsearched, finish)
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        toolset = ts.for_pydantic_ai()
        agent = Agent(script.model(), toolsets=[toolset.prefixed("x")], capabilities=[toolset.tool_search()])
        result = await agent.run("time in Paris, and 100 C in F?")
    assert result.output == "done" and not script.steps


async def test_call_tool_reaches_a_tool_only_through_the_filters_and_approvals_wrapped_around_it() -> None:
    from pydantic_ai import Agent, DeferredToolRequests

    cancel = "demo__cancel_booking"

    def filtered_out(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert CONVERT not in {t.name for t in info.function_tools}  # not even deferred
        return call(CONVERT, {"value": 100, "to": "fahrenheit"})

    def held_back(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert "no tool named" in retried(last_part(messages))
        return call("call_tool", {"name": cancel, "arguments": {"reference": "ABC123"}})

    def by_name(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert f"'{cancel}' needs the user's approval" in retried(last_part(messages))
        return call(cancel, {"reference": "ABC123"})

    script = Script(filtered_out, held_back, by_name)
    async with generated.toolset(["demo"], mode="routed") as ts:
        toolset = ts.for_pydantic_ai()
        wrapped = toolset.filtered(lambda ctx, tool: tool.name != CONVERT).approval_required(
            lambda ctx, tool, args: tool.name == cancel
        )
        agent = Agent(
            script.model(),
            toolsets=[wrapped],
            capabilities=[toolset.tool_search()],
            output_type=[str, DeferredToolRequests],
        )
        paused = await agent.run("convert, then cancel ABC123")
    assert isinstance(paused.output, DeferredToolRequests) and not script.steps
    assert [a.tool_name for a in paused.output.approvals] == [cancel]  # the wrapper's approval, asked for by name


async def test_process_tool_call_sees_and_may_change_each_call_direct_or_through_call_tool() -> None:
    from pydantic_ai import Agent, ToolReturn

    seen: list[tuple[str, dict[str, Any]]] = []

    async def process_tool_call(ctx: RunContext[Any], call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        seen.append((name, args))
        result = await call_tool(name, {**args, "to": "kelvin"} if name == CONVERT else args)
        assert isinstance(result, ToolReturn)
        return ToolReturn(return_value=f"checked: {result.return_value}", metadata=result.metadata)

    def through_call_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return call(CONVERT, {"value": 0, "to": "fahrenheit"})  # unsearched: run through call_tool

    def directly(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert last_part(messages).content == "checked: 273.15 kelvin"  # the hook changed the call and its result
        return call(CONVERT, {"value": 100, "to": "celsius"})  # revealed now: called by its own name

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert last_part(messages).content == "checked: 373.15 kelvin"
        return done()

    script = Script(through_call_tool, directly, finish)
    async with generated.toolset(["demo"], mode="routed") as ts:
        toolset = ts.for_pydantic_ai(process_tool_call=process_tool_call)
        agent = Agent(script.model(), toolsets=[toolset], capabilities=[toolset.tool_search()])
        result = await agent.run("0 C and 100 C")
    assert result.output == "done" and not script.steps
    assert seen == [(CONVERT, {"value": 0, "to": "fahrenheit"}), (CONVERT, {"value": 100, "to": "celsius"})]


async def test_approval_needs_deferred_output_and_approves_or_denies_each_call() -> None:
    from pydantic_ai import (
        Agent,
        DeferredToolRequests,
        DeferredToolResults,
        ModelResponse,
        ToolCallPart,
        ToolDenied,
        ToolReturnPart,
        UserError,
    )

    cancel = "demo__cancel_booking"

    def cancel_two(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = [ToolCallPart(cancel, {"reference": r}, tool_call_id=r) for r in ("ABC123", "XYZ789")]
        return ModelResponse(parts=parts)

    def finish(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        results = {p.tool_call_id: p for p in messages[-1].parts if isinstance(p, ToolReturnPart)}
        assert "ABC123" in results["ABC123"].content and results["ABC123"].outcome == "success"
        assert results["XYZ789"].content == "not that one" and results["XYZ789"].outcome == "denied"
        return done()

    script = Script(cancel_two, cancel_two, finish)
    async with generated.toolset(["demo"], mode="direct") as ts:
        toolset = ts.for_pydantic_ai(require_approval="destructive")
        with pytest.raises(UserError, match="DeferredToolRequests"):  # the default output type cannot pause
            await Agent(script.model(), toolsets=[toolset]).run("cancel ABC123 and XYZ789")
        agent = Agent(script.model(), toolsets=[toolset], output_type=[str, DeferredToolRequests])
        paused = await agent.run("cancel ABC123 and XYZ789")
        assert isinstance(paused.output, DeferredToolRequests)
        assert [a.tool_call_id for a in paused.output.approvals] == ["ABC123", "XYZ789"]
        answers = DeferredToolResults(approvals={"ABC123": True, "XYZ789": ToolDenied("not that one")})
        result = await agent.run(message_history=paused.all_messages(), deferred_tool_results=answers)
    assert result.output == "done" and not script.steps


@pytest.mark.parametrize("include", [True, None])
async def test_include_return_schema_gives_the_model_each_tool_output_schema(include: bool | None) -> None:
    from pydantic_ai import Agent

    def check(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        tool = next(t for t in info.function_tools if t.name == "time__get_current_time")
        shown = json.dumps(tool.return_schema) if tool.return_schema else tool.description or ""
        assert ('"timezone"' in shown and '"datetime"' in shown) == bool(include)
        return done()

    script = Script(check)
    async with generated.toolset(["time"], mode="direct") as ts:
        toolset = ts.for_pydantic_ai(include_return_schema=include)
        result = await Agent(script.model(), toolsets=[toolset]).run("what time is it?")
    assert result.output == "done" and not script.steps


@pytest.mark.parametrize("include", [True, False])
async def test_include_instructions_gives_the_model_the_servers_reviewed_instructions(include: bool) -> None:
    from pydantic_ai import Agent, ModelRequest

    reviewed = json.loads((REPO / "lockfiles" / "demo.lock.json").read_text(encoding="utf-8"))["server"]["instructions"]

    def check(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        given = "\n".join(m.instructions or "" for m in messages if isinstance(m, ModelRequest))
        assert (reviewed in given and "Instructions of the demo server:" in given) == include, given
        return done()

    script = Script(check)
    async with generated.toolset(["demo", "time"], mode="direct") as ts:
        assert ts.instructions == {"demo": reviewed}  # time sends none
        toolset = ts.for_pydantic_ai(include_instructions=include)
        result = await Agent(script.model(), toolsets=[toolset]).run("plan a trip")
    assert result.output == "done" and not script.steps

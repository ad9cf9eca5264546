"""LangChain: `create_agent` with the toolset's middleware, driven by LangChain's own fake chat model
(scripted per step) against the real servers, async and blocking; `for_langchain()` tools on their
own; destructive tools wait for LangChain's human-in-the-loop approval; LangChain's own provider tool
search and tool retry middleware compose with it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import generated
import pytest

# LangChain (and LangGraph, which imports langchain_core) is imported inside the tests that use it: every
# pytest-xdist worker collects this module but only one runs it, and importing LangChain costs seconds of CPU.
if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

META = {"search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"}
SEARCH = "tool_search_tool_bm25"  # the provider's own search (Anthropic's), as LangChain adds it
Step = Callable[[list["BaseMessage"], dict[str, Any]], "AIMessage"]  # quoted: defined without LangChain


def scripted(steps: list[Step], provider: str = "fake") -> Any:
    """A fake chat model playing `steps`; its class subclasses LangChain's, so it is defined here, not at import."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage  # noqa: F401 (pydantic resolves the fields with them)
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import Field

    class Scripted(GenericFakeChatModel):
        """LangChain's fake chat model, answering each call with the next step and recording the tools bound
        as a provider gets them: a deferred tool with `defer_loading`, a provider's own tool as it is."""

        messages: Iterator[AIMessage] = iter(())
        steps: list[Step]
        bound: dict[str, Any] = Field(default_factory=dict)
        provider: str = "fake"  # what LangChain's provider tool search reads as the model's provider

        def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Scripted:
            self.bound = {}
            for t in tools:
                if isinstance(t, dict) and t.get("type") != "function":
                    self.bound[t["name"]] = t
                    continue
                schema = convert_to_openai_tool(t)["function"]
                deferred = isinstance(t, BaseTool) and (t.extras or {}).get("defer_loading") is True
                self.bound[schema["name"]] = {**schema, "defer_loading": True} if deferred else schema
            return self

        def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
            return {**super()._get_ls_params(stop=stop, **kwargs), "ls_provider": self.provider}

        def _generate(
            self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=self.steps.pop(0)(messages, self.bound))])

    return Scripted(steps=steps, provider=provider)


def call(name: str, arguments: dict[str, Any], id: str) -> AIMessage:
    from langchain_core.messages import AIMessage

    return AIMessage(content="", tool_calls=[{"name": name, "args": arguments, "id": id, "type": "tool_call"}])


def done(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
    from langchain_core.messages import AIMessage

    return AIMessage(content="done")


def last_result(messages: list[BaseMessage]) -> ToolMessage:
    from langchain_core.messages import ToolMessage

    result = messages[-1]
    assert isinstance(result, ToolMessage), result
    return result


@pytest.mark.anyio
async def test_routed_search_lists_the_found_tool_at_the_next_model_call() -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    def search(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert set(bound) == META
        return call("search_tools", {"query": "current time in a timezone", "limit": 3}, "c1")

    def call_wrongly(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        found = json.loads(str(last_result(messages).content))["tools"][0]["name"]
        assert found == "time__get_current_time" and found in bound
        assert bound[found]["parameters"]["required"] == ["timezone"]  # listed with its reviewed schema
        return call(found, {"tz": "Europe/Paris"}, "c2")

    def recover(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        result = last_result(messages)
        assert result.status == "error" and "'timezone' is a required property" in str(result.content)
        return call("time__get_current_time", {"timezone": "Europe/Paris"}, "c3")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        result = last_result(messages)
        assert result.status == "success" and result.artifact["timezone"] == "Europe/Paris"
        return AIMessage(content="done")

    model = scripted([search, call_wrongly, recover, finish])
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        agent = create_agent(model, middleware=ts.for_langchain_agent())
        state = await agent.ainvoke({"messages": [("user", "What time is it in Paris?")]})
        assert ts.materialized == ()  # the conversation's messages hold what it found
    assert state["messages"][-1].content == "done" and not model.steps


def test_a_blocking_agent_runs_the_servers_on_the_toolsets_own_thread() -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    def ask(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert {"time__get_current_time", "time__convert_time"} <= set(bound)  # direct: every tool
        return call("time__get_current_time", {"timezone": "Asia/Tokyo"}, "c1")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert json.loads(str(last_result(messages).content))["timezone"] == "Asia/Tokyo"
        return AIMessage(content="done")

    model = scripted([ask, finish])
    with generated.toolset(["time"], mode="direct") as ts:
        state = create_agent(model, middleware=ts.for_langchain_agent()).invoke({"messages": [("user", "Tokyo?")]})
    assert state["messages"][-1].content == "done" and not model.steps


@pytest.mark.anyio
async def test_plain_tools_carry_the_structured_result_and_errors_as_error_messages() -> None:
    async with generated.toolset(["demo"], mode="direct") as ts:
        tools = {t.name: t for t in ts.for_langchain()}
        convert = tools["demo__convert_temperature"]
        assert convert.args_schema["properties"]["value"]["type"] == "number"
        ok = await convert.ainvoke({"type": "tool_call", "name": convert.name, "args": {"value": 100}, "id": "c1"})
        assert ok.status == "success" and ok.content == "100.00 celsius" and ok.artifact == {"result": "100.00 celsius"}
        bad = await convert.ainvoke({"type": "tool_call", "name": convert.name, "args": {"value": "hot"}, "id": "c2"})
        assert bad.status == "error" and "invalid arguments for demo__convert_temperature" in bad.content


def test_destructive_tools_wait_for_human_approval_and_call_tool_sends_the_model_to_them() -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    cancel = "demo__cancel_booking"

    def through_call_tool(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert cancel not in bound
        return call("call_tool", {"name": cancel, "arguments": {"reference": "ABC123"}}, "c1")

    def by_name(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert "needs the user's approval" in str(last_result(messages).content) and cancel in bound
        return call(cancel, {"reference": "ABC123"}, "c2")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert "ABC123" in str(last_result(messages).content)
        return AIMessage(content="done")

    model = scripted([through_call_tool, by_name, finish])
    config: Any = {"configurable": {"thread_id": "t1"}}
    with generated.toolset(["demo"], mode="routed") as ts:
        middleware = ts.for_langchain_agent(require_approval="destructive")
        agent = create_agent(model, middleware=middleware, checkpointer=InMemorySaver())
        paused = agent.invoke({"messages": [("user", "cancel booking ABC123")]}, config)
        (interrupt,) = paused["__interrupt__"]
        assert [r["name"] for r in interrupt.value["action_requests"]] == [cancel]
        state = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    assert state["messages"][-1].content == "done" and not model.steps


@pytest.mark.anyio
async def test_code_mode_offers_run_code_and_the_agent_runs_it() -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    code = "now = await time__get_current_time(timezone='Asia/Tokyo')\nnow['timezone']"

    def write_code(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert set(bound) == {"run_code"} and "async def time__get_current_time(" in bound["run_code"]["description"]
        return call("run_code", {"code": code}, "c1")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        result = last_result(messages)
        assert result.status == "success" and "Asia/Tokyo" in str(result.content)
        return AIMessage(content="done")

    model = scripted([write_code, finish])
    async with generated.toolset(["time"], mode="code") as ts:
        state = await create_agent(model, middleware=ts.for_langchain_agent()).ainvoke(
            {"messages": [("user", "Tokyo?")]}
        )
    assert state["messages"][-1].content == "done" and not model.steps


def test_the_middleware_covers_the_tools_of_every_routing_step() -> None:
    """Built while a step offers the time tools only, it still runs and asks approval for the others."""
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    ts = generated.toolset(["demo", "time"], mode="direct")
    ts.expose(["time"])
    listed, approval = ts.for_langchain_agent(require_approval="destructive")
    assert "demo__cancel_booking" in {tool.name for tool in listed.tools}
    assert isinstance(approval, HumanInTheLoopMiddleware) and list(approval.interrupt_on) == ["demo__cancel_booking"]


@pytest.mark.anyio
async def test_a_real_name_runs_unsearched_and_a_wrong_one_gets_mcpvends_answer_not_the_catalog() -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    def unsearched(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert "demo__convert_temperature" not in bound
        return call("demo__convert_temperature", {"value": 100, "to": "fahrenheit"}, "c1")

    def dotted(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert last_result(messages).content == "212.00 fahrenheit"
        return call("time.get_current_time", {"timezone": "UTC"}, "c2")  # the server's dotted name

    def misspelled(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        result = last_result(messages)
        assert result.status == "success" and result.artifact["timezone"] == "UTC"
        return call("get_curent_time", {"timezone": "UTC"}, "c3")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        result = last_result(messages)
        assert result.status == "error" and "did you mean time__get_current_time" in str(result.content)
        assert "demo__" not in str(result.content)  # LangChain's own answer would list every registered tool
        return AIMessage(content="done")

    model = scripted([unsearched, dotted, misspelled, finish])
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        agent = create_agent(model, middleware=ts.for_langchain_agent())
        state = await agent.ainvoke({"messages": [("user", "100 C in F, and the time in UTC?")]})
    assert state["messages"][-1].content == "done" and not model.steps


def deferred(bound: dict[str, Any]) -> set[str]:
    return {name for name, spec in bound.items() if spec.get("defer_loading")}


@pytest.mark.parametrize("search_first", [True, False])
def test_provider_search_defers_the_tools_it_names_placed_before_or_after(search_first: bool) -> None:
    from langchain.agents import create_agent
    from langchain.agents.middleware import ProviderToolSearchMiddleware
    from langchain_core.messages import AIMessage

    convert = "time__convert_time"

    def loaded(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert bound[SEARCH]["type"].startswith("tool_search_tool_bm25") and deferred(bound) == {convert}
        # The provider's search loaded it (server side): the model calls it by name.
        return call(convert, {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}, "c1")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        result = last_result(messages)
        assert result.status == "success" and result.artifact["target"]["timezone"] == "Asia/Tokyo"
        return AIMessage(content="done")

    model = scripted([loaded, finish], provider="anthropic")
    with generated.toolset(["time"], mode="direct") as ts:
        search, ours = ProviderToolSearchMiddleware(searchable_tools=[convert]), ts.for_langchain_agent()
        agent = create_agent(model, middleware=[search, *ours] if search_first else [*ours, search])
        state = agent.invoke({"messages": [("user", "Noon UTC in Tokyo?")]})
    assert state["messages"][-1].content == "done" and not model.steps


@pytest.mark.anyio
@pytest.mark.parametrize("search_first", [True, False])
async def test_routed_provider_search_defers_every_tool_not_found_placed_before_or_after(search_first: bool) -> None:
    from langchain.agents import create_agent
    from langchain.agents.middleware import ProviderToolSearchMiddleware
    from langchain_core.messages import AIMessage

    now = "time__get_current_time"

    def loaded(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert set(bound) - deferred(bound) == {SEARCH, "call_tool"}  # the provider's search replaces mcpvend's
        assert {now, "time__convert_time", "demo__convert_temperature"} <= deferred(bound)
        return call(now, {"timezone": "Asia/Tokyo"}, "c1")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        assert last_result(messages).artifact["timezone"] == "Asia/Tokyo"
        assert now not in deferred(bound) and "time__convert_time" in deferred(bound)  # found: listed in full
        return AIMessage(content="done")

    model = scripted([loaded, finish], provider="anthropic")
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        search, ours = ProviderToolSearchMiddleware(), ts.for_langchain_agent(provider_search=True)
        agent = create_agent(model, middleware=[search, *ours] if search_first else [*ours, search])
        state = await agent.ainvoke({"messages": [("user", "What time is it in Tokyo?")]})
    assert state["messages"][-1].content == "done" and not model.steps


@pytest.mark.parametrize(
    ("search_first", "error"),
    [(True, r"pass ts\.for_langchain_agent\(provider_search=True\)"), (False, "not bound to the model")],
)
def test_routed_mode_without_provider_search_refuses_a_deferral_it_would_lose(search_first: bool, error: str) -> None:
    from langchain.agents import create_agent
    from langchain.agents.middleware import ProviderToolSearchMiddleware

    model = scripted([done], provider="anthropic")
    with generated.toolset(["time"], mode="routed") as ts:
        search, ours = ProviderToolSearchMiddleware(searchable_tools=["time__convert_time"]), ts.for_langchain_agent()
        agent = create_agent(model, middleware=[search, *ours] if search_first else [*ours, search])
        with pytest.raises(ValueError, match=error):
            agent.invoke({"messages": [("user", "Noon UTC in Tokyo?")]})
    assert model.steps == [done]  # refused before the model was called


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("raise_failures", "status", "text"),
    [(True, "success", "answered by"), (False, "error", "the call was not repeated")],
)
async def test_a_failed_call_is_retried_by_langchains_retry_middleware_when_it_raises(
    crashy: ModuleType, tmp_path: Path, raise_failures: bool, status: str, text: str
) -> None:
    from langchain.agents import create_agent
    from langchain.agents.middleware import ToolRetryMiddleware
    from langchain_core.messages import AIMessage

    def write(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        # The server dies at the first call; not read-only, so mcpvend does not send it again itself.
        return call("crashy__flaky_write", {"marker": str(tmp_path / "died")}, "c1")

    def finish(messages: list[BaseMessage], bound: dict[str, Any]) -> AIMessage:
        result = last_result(messages)
        assert result.status == status and text in str(result.content)
        return AIMessage(content="done")

    model = scripted([write, finish])
    retry = ToolRetryMiddleware(max_retries=1, initial_delay=0, jitter=False)
    async with crashy.toolset(["crashy"], mode="direct") as ts:
        agent = create_agent(model, middleware=[*ts.for_langchain_agent(raise_failures=raise_failures), retry])
        state = await agent.ainvoke({"messages": [("user", "write it")]})
    assert state["messages"][-1].content == "done" and not model.steps


@pytest.mark.anyio
async def test_a_plain_tool_that_raises_failures_is_retried_by_langchains_own_with_retry(
    crashy: ModuleType, tmp_path: Path
) -> None:
    async with crashy.toolset(["crashy"], mode="direct") as ts:
        (flaky,) = [t for t in ts.for_langchain(raise_failures=True) if t.name == "crashy__flaky_write"]
        arguments = {"marker": str(tmp_path / "died")}
        message = await flaky.with_retry(stop_after_attempt=2, wait_exponential_jitter=False).ainvoke(
            {"type": "tool_call", "name": flaky.name, "args": arguments, "id": "c1"}
        )
    assert message.status == "success" and message.content.startswith("answered by")

"""Questions an upstream server asks during a call `mcpvend serve` forwards, put to the client that made it.

An upstream may elicit input, sample its client's model (`sampling/createMessage`) or ask for its roots
(`roots/list`), asking mcpvend (its client), and only for what its lockfile records. `serve` passes each
question on to its own client when that client declared the capability, else answers as the package does
by default: elicitation declined, sampling refused, no roots. A 2025-11-25 client is sent the question
mid-call. A 2026-07-28 client cannot be: the served call answers `input_required` with the question and
is held open, and the client's retry, which carries the answer and the `requestState` naming the held
call, resumes it.

Only questions asked in the served call's own task reach its client: those of a 2026-07-28
upstream (its rounds are driven there). A 2025-11-25 upstream asks on its connection's task,
which serves every client at once, so its questions get the default answers.

A question is masked as results are: a configured secret it quotes (a message, a schema, a prompt)
reaches the client as `***` (a proxy's callers are not its operators).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from secrets import token_urlsafe
from typing import TYPE_CHECKING, Any, TypeVar, cast

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from pydantic import BaseModel, ValidationError

from mcpvend.runtime.client.disguises import redact

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext
    from mcp.server.context import ServerRequestContext

MODERN = "2026-07-28"
ANSWER_WITHIN = 600.0  # seconds a held call waits for its client's answer, then the default answers
HELD = 256  # held calls kept; the oldest is given up beyond
Secrets = Callable[[], frozenset[str]]  # the values to mask, asked when a question comes (a server starts late)
T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)
Answer = asyncio.Future[types.InputResponse]


def masked(value: T, secrets: frozenset[str]) -> T:
    """`value` (a pydantic model or JSON data) with every secret it quotes, keys included, made `***`.

    Done on its JSON text, where `redact` also finds a secret's escaped and percent-encoded forms.
    """
    if not secrets:
        return value
    if isinstance(value, BaseModel):
        text = redact(value.model_dump_json(by_alias=True, exclude_unset=True), secrets)
        return cast("T", type(value).model_validate_json(text))
    return cast("T", json.loads(redact(json.dumps(value), secrets)))


@dataclass
class _Asking:
    """A served call, and the questions its upstream asked that its client has not answered yet."""

    ctx: ServerRequestContext[Any]
    secrets: Secrets
    task: asyncio.Task[Any] | None = None  # the served call's own task: only its questions are its client's
    questions: asyncio.Queue[tuple[str, types.InputRequest, Answer]] = field(default_factory=asyncio.Queue)
    pending: dict[str, Answer] = field(default_factory=dict)


_ASKING: contextvars.ContextVar[_Asking | None] = contextvars.ContextVar("mcpvend_asking", default=None)
_DECLINED = types.ElicitResult(action="decline")
_NO_SAMPLING = types.ErrorData(code=types.INVALID_REQUEST, message="this client does not sample")
_NO_ROOTS = types.ListRootsResult(roots=[])


async def relay_elicitation(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult | types.ErrorData:
    """The upstream connection's elicitation handler: asks the served call's client, or declines."""
    if not isinstance(params, types.ElicitRequestFormParams):  # a URL to open: not something to relay blind
        return _DECLINED
    needs = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    return await _relay(context, types.ElicitRequest(params=params), needs, types.ElicitResult, _DECLINED)


async def relay_sampling(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
    """The upstream connection's sampling handler: asks the served call's client's model, or refuses."""
    tools = params.tools is not None or params.tool_choice is not None
    sampling = types.SamplingCapability(
        tools=types.SamplingToolsCapability() if tools else None,
        context=types.SamplingContextCapability() if params.include_context not in (None, "none") else None,
    )
    answer = types.CreateMessageResultWithTools if tools else types.CreateMessageResult
    request = types.CreateMessageRequest(params=params)
    return await _relay(context, request, types.ClientCapabilities(sampling=sampling), answer, _NO_SAMPLING)


async def relay_roots(context: ClientRequestContext) -> types.ListRootsResult | types.ErrorData:
    """The upstream connection's roots handler: the served call's client's roots, or none."""
    needs = types.ClientCapabilities(roots=types.RootsCapability())
    return await _relay(context, types.ListRootsRequest(), needs, types.ListRootsResult, _NO_ROOTS)


async def _relay(
    context: ClientRequestContext,
    request: types.InputRequest,
    needs: types.ClientCapabilities,
    answer: type[R],
    default: R | types.ErrorData,
) -> R | types.ErrorData:
    """The served call's client's `answer` to `request` (masked), or `default` when that client is not to be
    asked: the question is not its call's, it did not declare `needs`, or it has not answered in time."""
    asking = _ASKING.get()
    # A question asked outside the call's task comes from the connection all clients share (a 2025-11-25
    # upstream, whose task may have been started inside this call): not this client's to answer.
    if asking is None or asking.task is not asyncio.current_task():
        return default
    if not asking.ctx.session.check_client_capability(needs):
        return default
    question = masked(request, asking.secrets())
    if asking.ctx.protocol_version != MODERN:
        related = ServerMessageMetadata(related_request_id=asking.ctx.request_id)
        try:
            return await asking.ctx.session.send_request(question, answer, metadata=related)
        except MCPError as refused:
            return refused.error
    answered: Answer = asyncio.get_running_loop().create_future()
    await asking.questions.put((str(context.request_id), question, answered))
    try:
        response = await asyncio.wait_for(answered, ANSWER_WITHIN)
        return answer.model_validate(response.model_dump(by_alias=True, exclude_unset=True))
    except (TimeoutError, ValidationError):  # no answer, or an answer to another question
        return default


@dataclass
class _Held:
    asking: _Asking
    call: asyncio.Task[Any]


class Relay:
    """Runs served calls so that their questions reach their clients (see the module's docstring)."""

    def __init__(self, secrets: Secrets) -> None:
        self.secrets = secrets
        self.held: OrderedDict[str, _Held] = OrderedDict()

    async def call(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
        run: Callable[[], Awaitable[Any]],
    ) -> tuple[Any, types.InputRequiredResult | None]:
        """`run()`'s result, or, while the upstream waits for an answer, the question to send the client."""
        held = self.held.pop(params.request_state, None) if params.request_state else None
        if held is None:
            asking = _Asking(ctx, self.secrets)
            token = _ASKING.set(asking)
            try:
                held = _Held(asking, asyncio.ensure_future(run()))  # the task keeps `asking` in its context
            finally:
                _ASKING.reset(token)
            asking.task = held.call
        else:
            held.asking.ctx = ctx
            for key, response in (params.input_responses or {}).items():
                answer = held.asking.pending.pop(key, None)
                if answer is not None and not answer.done():
                    answer.set_result(response)
        return await self._next(held)

    async def _next(self, held: _Held) -> tuple[Any, types.InputRequiredResult | None]:
        question = asyncio.ensure_future(held.asking.questions.get())
        await asyncio.wait({held.call, question}, return_when=asyncio.FIRST_COMPLETED)
        if held.call.done():
            question.cancel()
            return held.call.result(), None
        key, request, answer = question.result()
        held.asking.pending[key] = answer
        state = token_urlsafe(24)
        self.held[state] = held
        while len(self.held) > HELD:
            _, given_up = self.held.popitem(last=False)
            given_up.call.cancel()
        return None, types.InputRequiredResult(input_requests={key: request}, request_state=state)

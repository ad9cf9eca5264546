"""Questions an upstream server asks during a call `mcpvend serve` forwards, put to the client that made it.

A tool that elicits input asks mcpvend (its client); `serve` passes the question on to its own
client when that client declared elicitation, else declines it, as the package does by default.
A 2025-11-25 client is sent the question mid-call. A 2026-07-28 client cannot be: the served call
answers `input_required` with the question and is held open, and the client's retry, which
carries the answer and the `requestState` naming the held call, resumes it.

Only questions asked in the served call's own task reach its client: those of a 2026-07-28
upstream (its rounds are driven there). A 2025-11-25 upstream asks on its connection's task,
which serves every client at once, so its questions are declined.

A question is masked as results are: a configured secret it quotes, in its message or its schema,
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
from pydantic import BaseModel

from mcpvend.runtime.client.disguises import redact

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext
    from mcp.server.context import ServerRequestContext

MODERN = "2026-07-28"
ANSWER_WITHIN = 600.0  # seconds a held call waits for its client's answer, then the question is declined
HELD = 256  # held calls kept; the oldest is given up beyond
Secrets = Callable[[], frozenset[str]]  # the values to mask, asked when a question comes (a server starts late)
T = TypeVar("T")


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
    questions: asyncio.Queue[tuple[str, types.ElicitRequestParams, asyncio.Future[types.ElicitResult]]] = field(
        default_factory=asyncio.Queue
    )
    pending: dict[str, asyncio.Future[types.ElicitResult]] = field(default_factory=dict)


_ASKING: contextvars.ContextVar[_Asking | None] = contextvars.ContextVar("mcpvend_asking", default=None)
_ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())


async def relay_elicitation(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The upstream connection's elicitation handler: asks the served call's client, or declines."""
    asking = _ASKING.get()
    if not isinstance(params, types.ElicitRequestFormParams):  # a URL to open: not something to relay blind
        return types.ElicitResult(action="decline")
    # A question asked outside the call's task comes from the connection all clients share (a 2025-11-25
    # upstream, whose task may have been started inside this call): not this client's to answer.
    if asking is None or asking.task is not asyncio.current_task():
        return types.ElicitResult(action="decline")
    if not asking.ctx.session.check_client_capability(_ELICITATION):
        return types.ElicitResult(action="decline")
    question = masked(params, asking.secrets())
    if asking.ctx.protocol_version != MODERN:
        related = asking.ctx.request_id
        return await asking.ctx.session.elicit(question.message, question.requested_schema, related_request_id=related)
    answer: asyncio.Future[types.ElicitResult] = asyncio.get_running_loop().create_future()
    await asking.questions.put((str(context.request_id), question, answer))
    try:
        return await asyncio.wait_for(answer, ANSWER_WITHIN)
    except TimeoutError:
        return types.ElicitResult(action="decline")


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
                    answer.set_result(
                        response if isinstance(response, types.ElicitResult) else types.ElicitResult(action="decline")
                    )
        return await self._next(held)

    async def _next(self, held: _Held) -> tuple[Any, types.InputRequiredResult | None]:
        question = asyncio.ensure_future(held.asking.questions.get())
        await asyncio.wait({held.call, question}, return_when=asyncio.FIRST_COMPLETED)
        if held.call.done():
            question.cancel()
            return held.call.result(), None
        key, params, answer = question.result()
        held.asking.pending[key] = answer
        state = token_urlsafe(24)
        self.held[state] = held
        while len(self.held) > HELD:
            _, given_up = self.held.popitem(last=False)
            given_up.call.cancel()
        return None, types.InputRequiredResult(
            input_requests={key: types.ElicitRequest(params=params)}, request_state=state
        )

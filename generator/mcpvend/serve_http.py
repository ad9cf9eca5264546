"""The HTTP side of `mcpvend serve`: which Host and Origin it answers, and how it keeps its sessions.

serve has no authentication of its own. Whatever address it is bound to, a request must name, in
Host (and Origin, when a browser sends one), the bound address, loopback, or what `--allow-host`
and `--allow-origin` add: a page on another site whose name resolves to serve's address (DNS
rebinding) names that site, and is turned away (421, 403). The SDK turns these checks on for a
loopback bind only; here they are never off.

Sessions are capped (`--max-sessions`); a full house makes room rather than refusing the next
client: the session idle longest among those of the client address holding the most is closed, as
its idle timeout would close it. A session serving a request (a call, an open stream) is never
closed, so one client that opens sessions by the thousand cannot lock the others out.
"""

from __future__ import annotations

import ipaddress
import math
from collections import Counter
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route

if TYPE_CHECKING:
    from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from starlette.types import Receive, Scope, Send

    from mcpvend.serve_options import ServeOptions

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")  # as Host names them
EXPOSED = (
    "warning: serve has no authentication of its own: put an authenticating reverse proxy in front of it "
    "(a request naming a Host other than this address or loopback is refused; --allow-host adds one)"
)
_PEER: ContextVar[str | None] = ContextVar("mcpvend_peer", default=None)


def is_loopback(host: str) -> bool:
    """Whether only this machine reaches `host` (a name may resolve to anything: not loopback)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def shown(host: str) -> str:
    """`host` as a URL and the Host header write it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def security(options: ServeOptions, port: int) -> TransportSecuritySettings:
    """The Host and Origin values served: the bound address with its port, loopback on any port, and the options'."""
    bound = shown(options.host)
    hosts = [f"{bound}:{port}", *(f"{name}:*" for name in LOOPBACK_NAMES), *options.allow_hosts]
    origins = [f"http://{bound}:{port}", *(f"http://{name}:*" for name in LOOPBACK_NAMES), *options.allow_origins]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(dict.fromkeys(hosts)),
        allowed_origins=list(dict.fromkeys(origins)),
    )


def http_app(server: Server[Any], options: ServeOptions, port: int, path: str) -> Starlette:
    """The streamable HTTP app of `server` at `path`, as `Server.streamable_http_app` builds it, with our sessions."""
    sessions = Sessions(
        server,
        security_settings=security(options, port),
        session_idle_timeout=options.session_idle,
        max_sessions=options.max_sessions,
    )
    return Starlette(routes=[Route(path, endpoint=StreamableHTTPASGIApp(sessions))], lifespan=lambda _: sessions.run())


class Sessions(StreamableHTTPSessionManager):
    """The SDK's sessions, which at the cap close the idlest session of the busiest client for a new one.

    It overrides three of the manager's own methods (mcp is pinned to a minor release): admission,
    the request that leads to it (for the client's address), and a session's end.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.peers: dict[str, str | None] = {}  # the client address that opened each session

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Note the client's address for `_admit_session`, which the SDK calls without the request."""
        client = scope.get("client")
        token = _PEER.set(client[0] if client else None)
        try:
            await super()._handle_stateful_request(scope, receive, send)
        finally:
            _PEER.reset(token)

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self._close_idlest()
        admitted = super()._admit_session(requestor)
        if admitted is not None and admitted.mcp_session_id is not None:
            self.peers[admitted.mcp_session_id] = _PEER.get()
        return admitted

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        self.peers.pop(session_id, None)
        await super()._discard_session(session_id, transport)

    def _close_idlest(self) -> None:
        """Forget the session to close at once (its id answers 404 from now on) and end it as its idle timeout would.

        A session's idle deadline is infinite while it serves a request, and otherwise its last use
        plus the idle timeout: the smallest finite one is the session idle longest.
        """
        held = Counter(self.peers.get(session) for session in self._server_instances)
        idle = {
            session: scope
            for session, transport in self._server_instances.items()
            if (scope := transport.idle_scope) is not None and math.isfinite(scope.deadline) and not scope.cancel_called
        }
        if not idle:
            return
        session = min(idle, key=lambda session: (-held[self.peers.get(session)], idle[session].deadline))
        del self._server_instances[session]
        self._session_owners.pop(session, None)
        self.peers.pop(session, None)
        idle[session].cancel()

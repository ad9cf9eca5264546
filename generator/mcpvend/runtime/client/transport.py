"""A transport's streams for a target: a stdio child (its stderr copied with the secrets taken out), or
streamable HTTP or the legacy HTTP+SSE transport, each with its stream wrappers in place.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, TextIO

import httpx2
from mcp import StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

if TYPE_CHECKING:  # the SDK's stream protocols, for annotations only: the module is private to it
    from mcp.client._transport import TransportStreams

from .disguises import redact
from .streams import HttpStatuses, Link, WireTap
from .targets import StdioTarget, Target

HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # the SDK's own default, for both HTTP transports


class RedactedStderr:
    """A pipe for a child's stderr that copies each line to `destination` with the secrets taken out.

    A server's stderr is its own, and a careless one prints its environment or its command line
    on the way down; passed through as is, that would put our credentials in the caller's logs.
    """

    def __init__(self, destination: TextIO, secrets: frozenset[str]) -> None:
        read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "w")  # what the child gets as its stderr
        self._reader = os.fdopen(read_fd, "rb")
        self._destination = destination
        self._secrets = secrets
        self._thread = threading.Thread(target=self._pump, name="mcpvend-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        with self._reader:
            for line in self._reader:
                # A destination that fails is skipped, never the draining: a full pipe would block the child.
                with contextlib.suppress(OSError, ValueError):
                    self._destination.write(redact(line.decode("utf-8", errors="replace"), self._secrets))
                    self._destination.flush()

    def started(self) -> None:
        """The child holds the pipe now: drop ours, so its exit ends the copying."""
        self.writer.close()

    def close(self, wait: float = 2.0) -> None:
        """Wait (briefly: the child is gone) until the last line is copied."""
        self.writer.close()
        self._thread.join(wait)


@asynccontextmanager
async def transport(
    target: Target, errlog: TextIO | None, tap: WireTap | None, link: Link | None, auth: httpx2.Auth | None = None
) -> AsyncIterator[TransportStreams]:
    """The target's streams, wrapped by `link` (stdio only) and then `tap`; HTTP errors keep their status."""
    if isinstance(target, StdioTarget):
        params = StdioServerParameters(
            command=target.command, args=list(target.args), env=dict(target.env) or None, cwd=target.cwd
        )
        secrets = target.secret_values()
        stderr = RedactedStderr(errlog if errlog is not None else sys.stderr, secrets) if secrets else None
        try:
            sink = stderr.writer if stderr is not None else errlog
            opened = stdio_client(params, errlog=sink) if sink is not None else stdio_client(params)
            async with opened as streams:
                if stderr is not None:
                    stderr.started()
                streams = link.wrap(streams) if link else streams
                yield tap.wrap(streams) if tap else streams
        finally:
            if stderr is not None:
                stderr.close()
    else:
        statuses = HttpStatuses()
        if auth is None and target.oauth is not None:
            # The SDK's OAuth client, imported by the servers that sign in only.
            from .oauth import provider

            auth = provider(target.url, target.oauth)

        def http_client(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(
                headers=headers, timeout=timeout or HTTP_TIMEOUT, auth=auth, event_hooks={"response": [statuses.record]}
            )

        async with contextlib.AsyncExitStack() as stack:
            if target.sse:
                streams = await stack.enter_async_context(
                    sse_client(
                        target.url,
                        headers=dict(target.headers),
                        timeout=HTTP_TIMEOUT.connect or 30.0,
                        sse_read_timeout=HTTP_TIMEOUT.read or 300.0,
                        httpx_client_factory=http_client,
                        auth=auth,
                    )
                )
            else:
                http = await stack.enter_async_context(http_client(dict(target.headers), auth=auth))
                streams = await stack.enter_async_context(streamable_http_client(target.url, http_client=http))
            streams = statuses.wrap(streams)
            yield tap.wrap(streams) if tap else streams

"""Calls from code without an event loop (LangChain's `invoke`, a script): the toolset's servers then
run in an event loop of the toolset's own, on a thread, until the toolset is closed.

A server connection belongs to the event loop that started it, so a toolset serves either async
callers in their loop or blocking callers through this one, and says so when mixed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from anyio.from_thread import BlockingPortal, start_blocking_portal

T = TypeVar("T")


class Blocking:
    """The toolset's own event loop thread, started by the first blocking call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._portal: BlockingPortal | None = None
        self._exit: contextlib.ExitStack | None = None

    @property
    def active(self) -> bool:
        return self._portal is not None

    def run(self, function: Callable[..., Awaitable[T]], *args: Any) -> T:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("a blocking call would stall the running event loop: await the async call instead")
        with self._lock:
            if self._portal is None:
                stack = contextlib.ExitStack()
                self._portal = stack.enter_context(start_blocking_portal())
                self._exit = stack
            portal = self._portal
        return portal.call(function, *args)

    def close(self, function: Callable[[], Awaitable[None]]) -> None:
        """Run `function` (which stops the servers) in the thread's loop, then stop the thread."""
        with self._lock:
            portal, stack = self._portal, self._exit
            self._portal = self._exit = None
        if portal is None or stack is None:
            return
        with stack:
            portal.call(function)

"""What `mcpvend serve` was asked for: read by the server (`serve.py`) and its HTTP app (`serve_http.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from mcpvend.runtime.core.budget import RequestedMode

Transport = Literal["stdio", "http"]
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class ServeOptions:
    servers: tuple[str, ...] = ()
    mode: RequestedMode = "auto"
    context_window: int = 128_000
    transport: Transport = "stdio"
    host: str = LOOPBACK
    port: int = 8000
    ranker: str = "auto"  # search_tools' ranking: "auto", "bm25" or "hybrid" (needs mcpvend[semantic])
    audit_dir: str | None = None  # where tool-calls.jsonl records every call of every client
    mask_results: bool = True  # configured secrets in results become *** (off: a single-user setup)
    warm: bool = False  # start every upstream with serve, not on its first call
    session_idle: float = 300.0  # seconds an HTTP session may sit unused before it is closed
    max_sessions: int = 1000  # HTTP sessions kept open at once
    allow_hosts: tuple[str, ...] = ()  # Host values served besides the bound address and loopback
    allow_origins: tuple[str, ...] = ()  # Origin values likewise

"""Log records with the configured secrets taken out, on every logger that may carry them.

Apart from `targets.py`, which reading a config needs: the pre-commit path (`generate --check`) imports no
`logging`.
"""

from __future__ import annotations

import logging
import threading

from .disguises import redact


class RedactingFilter(logging.Filter):
    """Takes every secret value registered so far out of log records (message, arguments, traceback), in the
    disguised forms too (`disguises`: the base64 of a `Basic` header a server echoes holds its password).

    The SDK and httpx log the URL of every request (with its query and userinfo) and the headers
    of responses (a redirect's `Location`); `mcpvend -v` and an application logging at INFO would
    otherwise print the credentials configured for a server. Values are added as servers are
    reached and never removed: a record may be logged after its connection has closed.
    """

    def __init__(self) -> None:
        super().__init__()
        self._secrets: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    def add(self, secrets: frozenset[str]) -> None:
        with self._lock:
            self._secrets = self._secrets | secrets

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = self._secrets
        if not secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record whose arguments do not fit its format is still shown
            message = f"{record.msg} (arguments: {record.args!r})"
        record.msg, record.args = redact(message, secrets), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, secrets)
        return True


REDACTING_FILTER = RedactingFilter()
# Where the SDK, httpx and asyncio log what a connection sends and receives: these loggers and
# their children, and by name those created only when their module is first used.
_LOGGED_BY = ("httpx2", "httpcore2", "mcp", "client", "asyncio", "sse_starlette")
_LOGGERS = (
    "httpcore2.connection",
    "httpcore2.http11",
    "httpcore2.http2",
    "httpcore2.proxy",
    "httpcore2.socks",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "sse_starlette.sse",  # logs every chunk a server sends: results, when the package is served
)


def guard_logs(secrets: frozenset[str]) -> None:
    """Register `secrets` with the filter and put it on every logger that may log them.

    A filter on a logger sees only the records of that very logger, so each one under the
    prefixes gets it (existing loggers now: they are created when their modules are imported).
    """
    if not secrets:
        return
    REDACTING_FILTER.add(secrets)
    names = [n for n in list(logging.Logger.manager.loggerDict) if n.split(".")[0] in _LOGGED_BY]
    for name in {*names, *_LOGGED_BY, *_LOGGERS}:
        logger = logging.getLogger(name)
        if REDACTING_FILTER not in logger.filters:
            logger.addFilter(REDACTING_FILTER)

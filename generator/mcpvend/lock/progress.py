"""How `lock` shows its work: a live display on a terminal, plain lines in logs and CI."""

from __future__ import annotations

import sys
from typing import TextIO

from mcpvend.counts import plural
from mcpvend.errors import printable
from mcpvend.lock.run import Outcome

_MARKS = {
    "locked": "locked",
    "unchanged": "unchanged",
    "up to date": "up to date",
    "drifted": "DRIFT",
    "failed": "FAILED",
}


def describe(outcome: Outcome, relative_to: str = "") -> list[str]:
    """The lines one outcome prints: a status line (tools locked, and rejected: served but not lockable), then
    its changes, rejected tools and notes."""
    where = str(outcome.path)
    if relative_to and where.startswith(relative_to):
        where = where[len(relative_to) :].lstrip("/")
    if outcome.status == "failed":
        return [f"error: {printable(outcome.detail)}"]
    rejected = f", {len(outcome.rejected)} rejected" if outcome.rejected else ""
    head = f"{_MARKS[outcome.status]:>10}  {outcome.server}: {plural(outcome.tools, 'tool')}{rejected}  {where}"
    if outcome.detail:
        head += f"  ({outcome.detail})"
    lines = [head]
    lines += [f"{'':>10}  - {change}" for change in outcome.changes]
    lines += [
        f"warning: server '{outcome.server}': tool {r.name[:80]!r} was not locked: {r.reason}" for r in outcome.rejected
    ]
    lines += [f"warning: {note}" for note in outcome.notes]
    return [printable(line) for line in lines]


class PlainReporter:
    """One block per server as it finishes; nothing that redraws."""

    def __init__(self, stream: TextIO, relative_to: str = "") -> None:
        self._stream = stream
        self._relative_to = relative_to

    def started(self, servers: list[str]) -> None:
        pass

    def finished(self, outcome: Outcome) -> None:
        for line in describe(outcome, self._relative_to):
            print(line, file=self._stream, flush=True)

    def close(self) -> None:
        pass


class LiveReporter(PlainReporter):
    """A spinner per server still running, above the lines of those finished."""

    def __init__(self, stream: TextIO, relative_to: str = "") -> None:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        super().__init__(stream, relative_to)
        self._console = Console(file=stream, highlight=False)
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=self._console,
            transient=True,
        )
        self._tasks: dict[str, int] = {}

    def started(self, servers: list[str]) -> None:
        self._progress.start()
        for name in servers:
            self._tasks[name] = self._progress.add_task(f"locking {name}", total=None)

    def finished(self, outcome: Outcome) -> None:
        self._progress.remove_task(self._tasks.pop(outcome.server))  # type: ignore[arg-type]
        style = {"failed": "red", "drifted": "yellow"}.get(outcome.status, "green")
        for line in describe(outcome, self._relative_to):
            self._console.print(line, style=style, markup=False)

    def close(self) -> None:
        self._progress.stop()


def reporter_for(stream: TextIO = sys.stderr, relative_to: str = "") -> PlainReporter:
    return LiveReporter(stream, relative_to) if stream.isatty() else PlainReporter(stream, relative_to)

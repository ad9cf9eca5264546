"""Reviewed exceptions: findings a reviewer accepted on purpose, kept out of the exit code but still counted.

Two sources: `[lint] ignore = ["RULE@SERVER/TOOL", ...]` in the config (a lint rule on one server's
tool, globs allowed in SERVER and TOOL, an empty TOOL for the server's own text), and `--ignore GLOB`
on the command line, matched against a finding's JSON Pointer or its tool's name.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcpvend.drift.compare import Finding
from mcpvend.drift.lint import RETIRED, RULES
from mcpvend.errors import ConfigError


@dataclass(frozen=True)
class Rule:
    rule: str
    server: str  # a glob
    tool: str  # a glob; "" is the server's own text (its instructions)


@dataclass(frozen=True)
class Ignore:
    rules: tuple[Rule, ...] = ()
    globs: tuple[str, ...] = ()

    def accepts(self, finding: Finding, server: str) -> bool:
        """Whether `finding`, on a lockfile of `server`, is a reviewed exception."""
        if any(fnmatch.fnmatchcase(finding.pointer, g) or fnmatch.fnmatchcase(finding.tool, g) for g in self.globs):
            return True
        return finding.rule is not None and any(
            r.rule == finding.rule
            and fnmatch.fnmatchcase(server, r.server)
            and (fnmatch.fnmatchcase(finding.tool, r.tool) if r.tool else finding.tool == "")
            for r in self.rules
        )

    def split(self, findings: Iterable[Finding], server: str) -> tuple[list[Finding], list[Finding]]:
        """(findings that count, findings accepted), each in the order given."""
        kept: list[Finding] = []
        accepted: list[Finding] = []
        for finding in findings:
            (accepted if self.accepts(finding, server) else kept).append(finding)
        return kept, accepted


def ignore_for(config_path: Path | None, entries: Sequence[str], globs: Sequence[str] = ()) -> Ignore:
    """The exceptions of a config's `[lint] ignore` (already shaped RULE@SERVER/TOOL) and of `--ignore`."""
    rules = []
    for entry in entries:
        rule, _, target = entry.partition("@")
        server, _, tool = target.partition("/")
        if rule not in RULES and rule not in RETIRED:
            raise ConfigError(
                f"{config_path}: [lint] ignore: {entry!r}: no lint rule {rule!r} (rules: {', '.join(RULES)})"
            )
        rules.append(Rule(rule, server, tool))
    return Ignore(tuple(rules), tuple(globs))

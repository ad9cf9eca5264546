"""The runtime every generated package carries in `_runtime/`: mcpvend's own `runtime/`, copied and formatted."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from mcpvend.codegen.render import black_format

RUNTIME = Path(__file__).resolve().parent.parent / "runtime"
RUNTIME_MODULES = (
    "__init__.py",
    "adapters.py",
    "argument_checks.py",
    "audit.py",
    "blocking.py",
    "budget.py",
    "catalog.py",
    "code_api.py",
    "code_mode.py",
    "connection.py",
    "failures.py",
    "files.py",
    "frameworks/__init__.py",
    "frameworks/bridge.py",
    "frameworks/langchain_tools.py",
    "frameworks/openai_agents_server.py",
    "frameworks/pydantic_ai_toolset.py",
    "format_hermes.py",
    "format_json.py",
    "format_mistral.py",
    "format_pythonic.py",
    "formats.py",
    "manifest.py",
    "meta_tools.py",
    "names.py",
    "nullability.py",
    "package.py",
    "pinning.py",
    "pointers.py",
    "pool.py",
    "results.py",
    "routing.py",
    "reviewed.py",
    "sandbox.py",
    "search.py",
    "semantic.py",
    "specs.py",
    "strict.py",
    "strict_rules.py",
    "targets.py",
    "telemetry.py",
    "textcalls.py",
    "texttools.py",
    "tools.py",
    "toolset.py",
    "validation.py",
)
RUNTIME_HEADER = "# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.\n"


def runtime_sources() -> list[tuple[str, str]]:
    """Each runtime module's source as mcpvend holds it, for the fingerprint of `generate --check`."""
    return [(module, (RUNTIME / module).read_text(encoding="utf-8")) for module in RUNTIME_MODULES]


@cache
def vendored_runtime() -> dict[str, str]:
    """The runtime's modules as the package holds them: the same for every output of a process, and black
    formatting them is most of a small server's generation time."""
    return {f"_runtime/{module}": black_format(RUNTIME_HEADER + source) for module, source in runtime_sources()}

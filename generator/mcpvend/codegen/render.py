"""Jinja2 templates in, black-formatted Python out; templates only print what the plan decided."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


def _templates() -> Path:
    """`mcpvend/templates` in a wheel; the repository's top-level `templates/` in a checkout (editable install).

    Plain paths, not `importlib.resources`: pip installs files, and that import is a tenth of `generate --check`.
    """
    package = Path(__file__).resolve().parents[1]
    packaged = package / "templates"
    return packaged if packaged.is_dir() else package.parents[1] / "templates"


@cache
def _environment() -> jinja2.Environment:
    import jinja2

    templates = _templates()
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: templates.joinpath(name).read_text(encoding="utf-8")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # the output is Python, not HTML; every value is escaped before rendering
    )


def render(template: str, **context: Any) -> str:
    return _environment().get_template(template).render(**context)


def black_format(source: str, *, pyi: bool = False, line_length: int = 88) -> str:
    import black
    from black.mode import TargetVersion

    mode = black.Mode(target_versions={TargetVersion.PY311}, is_pyi=pyi, line_length=line_length)
    return black.format_str(source, mode=mode)


def template_sources() -> dict[str, str]:
    """Every template's text, for the fingerprint that lets `generate --check` skip work."""
    templates = _templates()
    return {
        entry.name: entry.read_text(encoding="utf-8") for entry in templates.iterdir() if entry.name.endswith(".jinja")
    }

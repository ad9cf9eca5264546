"""Which tool-call format a model gets: a decision tree over native calls, code mode and text formats.

Native tool calling needs a model (and a server) that does it; code mode needs its sandbox; a text
format works with any model that follows instructions, and is the only way a model served without a
tool parser (llama.cpp, raw transformers, many Ollama models) can use tools at all. The caller lists the
formats it accepts, in order, and may name a primary: the primary is used when it is available, else
the first available, and `plan()` says which and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..code.sandbox import (
    available as code_mode_available,  # the one tie to code mode: its sandbox imports
)
from ..core.budget import FormatChoice
from .calls import TextFormat
from .hermes import Hermes
from .json_calls import JsonCalls
from .mistral import VERSIONS, Mistral
from .pythonic import Pythonic

NATIVE, CODE = "native", "code"
TEXT_FORMATS: dict[str, TextFormat] = {
    "hermes": Hermes(),
    "mistral": Mistral(),  # v3: Mistral 7B Instruct v0.3 and Nemo, the Mistral models most often run locally
    **{f"mistral-{v}": Mistral(f"mistral-{v}", v) for v in VERSIONS},
    "pythonic": Pythonic(),
    "json": JsonCalls(),
}
FORMATS: tuple[str, ...] = (NATIVE, CODE, *TEXT_FORMATS)
DEFAULT_FORMATS: tuple[str, ...] = (NATIVE, "hermes", "mistral", "pythonic", "json")


def text_format(name: str) -> TextFormat:
    """A text format by name; native calls and code mode have no text to render or parse."""
    if name in TEXT_FORMATS:
        return TEXT_FORMATS[name]
    known = ", ".join(TEXT_FORMATS)
    if name in (NATIVE, CODE):
        raise ValueError(f"{name!r} is not a text format: name one of {known}")
    raise ValueError(f"unknown text format {name!r}; use one of {known}")


@dataclass(frozen=True)
class TextOptions:
    """The tool-call formats the caller accepts, in order (native, code, hermes, mistral[-vN], pythonic,
    json), the one to prefer when available, and whether the model has native tool calling at all."""

    formats: Sequence[str] | None = None
    primary: str | None = None
    model_tool_calling: bool = True


def choose_format(
    formats: Sequence[str] | None = None,
    primary: str | None = None,
    *,
    model_tool_calling: bool = True,
    code_available: bool | None = None,
) -> FormatChoice:
    """The primary format if it is available, else the first available one.

    Native needs `model_tool_calling`; code needs its sandbox (`code_mode_available()`, unless
    `code_available` says); text formats are always available. `primary` defaults to the first listed.
    """
    if isinstance(formats, str):
        raise TypeError(f"formats must be a list of format names, such as [{formats!r}]")
    enabled = DEFAULT_FORMATS if formats is None else tuple(dict.fromkeys(formats))
    unknown = [name for name in enabled if name not in FORMATS]
    if unknown or not enabled:
        wrong = unknown[0] if unknown else None
        raise ValueError(f"unknown tool-call format {wrong!r}; use some of {', '.join(FORMATS)}")
    chosen_by = "the first format listed" if primary is None else "the primary format"
    primary = enabled[0] if primary is None else primary
    if primary not in enabled:
        raise ValueError(f"the primary format {primary!r} is not one of the formats ({', '.join(enabled)})")
    why_not: dict[str, str] = {}
    if NATIVE in enabled and not model_tool_calling:
        why_not[NATIVE] = "the model has no native tool calling: model_tool_calling=False"
    if CODE in enabled and not (code_mode_available() if code_available is None else code_available):
        why_not[CODE] = "code mode needs its sandbox, and pydantic_monty cannot be imported"
    unavailable = tuple((name, why_not[name]) for name in enabled if name in why_not)
    available = [name for name in enabled if name not in why_not]
    if not available:
        reasons = "; ".join(f"{name}: {why}" for name, why in unavailable)
        raise ValueError(f"none of the formats {', '.join(enabled)} is available ({reasons})")
    chosen = primary if primary in available else available[0]
    if chosen == primary:
        reason = f"{chosen_by}, available ({_AVAILABLE.get(chosen, _AVAILABLE['text'])})"
    else:
        reason = f"the primary {primary} is unavailable ({why_not[primary]}); {chosen} is the first available"
    return FormatChoice(chosen, enabled, primary, reason, unavailable, is_text=chosen in TEXT_FORMATS)


_AVAILABLE = {
    NATIVE: "the model calls tools natively",
    CODE: "pydantic_monty is installed",
    "text": "a text format works with any instruction model",
}

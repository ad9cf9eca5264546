"""The config: which servers to vendor, how to reach them, where lockfiles and the package go.

`model.py` holds the typed config (servers as written, `${VAR}`s unexpanded), `parse.py` reads and checks a
file into it, `raw.py` reads the file's table as written, `find.py` finds the file. Every name other modules
use is imported from here, on first use (PEP 562): `generate --check` on an unchanged tree reads only the
raw table, and importing the package must not cost it the parser.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpvend.config.find import find_config as find_config
    from mcpvend.config.model import AuthConfig as AuthConfig
    from mcpvend.config.model import Config as Config
    from mcpvend.config.model import ServerConfig as ServerConfig
    from mcpvend.config.parse import load_config as load_config
    from mcpvend.credentials import looks_like_credential as looks_like_credential
    from mcpvend.credentials import writable_env as writable_env

_HOME = {
    "find_config": "mcpvend.config.find",
    "AuthConfig": "mcpvend.config.model",
    "Config": "mcpvend.config.model",
    "ServerConfig": "mcpvend.config.model",
    "load_config": "mcpvend.config.parse",
    "looks_like_credential": "mcpvend.credentials",
    "writable_env": "mcpvend.credentials",
}


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module 'mcpvend.config' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)

"""Errors that reach the user as one line and exit code 2."""

from __future__ import annotations


class MCPVendError(Exception):
    """An error whose message is complete enough to show the user as it is."""


class ConfigError(MCPVendError):
    """The config file is missing, unreadable or says something we cannot use."""


class LockfileError(MCPVendError):
    """A lockfile is missing, corrupt, hand-edited or of a format we do not know."""


class ServerError(MCPVendError):
    """A server could not be started, spoke badly, or timed out."""

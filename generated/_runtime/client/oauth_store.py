# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The token store: what signing in to a server obtained, kept for the user alone.

One JSON file per server and resource under the user's config directory (`$XDG_CONFIG_HOME/mcpvend/tokens`,
or the platform's equivalent), mode 0600 in a 0700 directory, never in the repository. It holds the
tokens, a client registered on the fly, and the authorization server they come from (`Issuer`). Anyone
who could write there could choose the tokens we present and where a refresh token goes, so a store
file that is a symlink, or not the user's alone, is refused; a directory others may write to is made
0700 when it is the user's, else refused; and a write never goes through anything planted beside the
file. A client secret from the config stays in memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import ValidationError

from .logs import guard_logs
from .oauth_policy import Refused
from .targets import meaningful

# Never through a symlink, never inherited by a child process: where the platform has the flags.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def config_dir() -> Path:
    """mcpvend's directory in the user's config location (the XDG rule, or the platform's own)."""
    if base := os.environ.get("XDG_CONFIG_HOME"):
        return Path(base) / "mcpvend"
    if sys.platform == "win32" and (appdata := os.environ.get("APPDATA")):
        return Path(appdata) / "mcpvend"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "mcpvend"
    return Path.home() / ".config" / "mcpvend"


@dataclass(frozen=True)
class Issuer:
    """The authorization server that issued the stored tokens: the one place their refresh token may go.

    The SDK keeps what discovery found in memory only; a later process without it would send the
    refresh token to `<MCP server origin>/token`. So it is recorded at sign-in and restored with the tokens.
    """

    issuer: str
    token_endpoint: str
    metadata: OAuthMetadata | None = None  # RFC 8414, when the server publishes it
    resource: ProtectedResourceMetadata | None = None  # RFC 9728: names the authorization server

    @property
    def authorization_server(self) -> str | None:
        """The server the protected-resource metadata names, as the SDK picks it (the first)."""
        return str(self.resource.authorization_servers[0]) if self.resource is not None else None

    def dump(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "token_endpoint": self.token_endpoint,
            "metadata": None if self.metadata is None else self.metadata.model_dump(mode="json", exclude_none=True),
            "resource_metadata": None if self.resource is None else self.resource.model_dump(mode="json"),
        }

    @classmethod
    def load(cls, data: object) -> Issuer | None:
        """The record in `data`, or None when there is none or its parts do not name one issuer."""
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("issuer", "token_endpoint")):
            return None
        try:
            metadata, resource = data.get("metadata"), data.get("resource_metadata")
            found = cls(
                data["issuer"],
                data["token_endpoint"],
                None if metadata is None else OAuthMetadata.model_validate(metadata),
                None if resource is None else ProtectedResourceMetadata.model_validate(resource),
            )
        except ValidationError:
            return None
        named = [found.authorization_server, None if found.metadata is None else str(found.metadata.issuer)]
        if any(name is not None and not issuers_match(name, found.issuer) for name in named):
            return None
        if found.metadata is not None and str(found.metadata.token_endpoint) != found.token_endpoint:
            return None
        return found


class TokenStore:
    """The SDK's `TokenStorage` for one server and resource.

    `client`: a client registered beforehand (the config's client_id and client_secret), served from
    memory and never written. `issuer`: the authorization server of the tokens, restored with them by
    the provider and written with every new set of them.
    """

    def __init__(
        self,
        server: str,
        resource: str,
        directory: Path | None = None,
        client: OAuthClientInformationFull | None = None,
    ) -> None:
        self.server = server
        self.resource = resource
        self.client = client
        self.issuer: Issuer | None = None
        digest = hashlib.sha256(f"{server}\n{resource}".encode()).hexdigest()[:24]
        self.path = (directory or config_dir() / "tokens") / f"{digest}.json"

    def read(self) -> dict[str, Any]:
        if not self._private_directory(create=False):
            return {}
        try:
            descriptor = os.open(self.path, os.O_RDONLY | _NOFOLLOW)
        except FileNotFoundError:
            return {}
        except OSError:
            if self.path.is_symlink():
                raise Refused(
                    f"the token store {self.path} is a symbolic link, which mcpvend does not follow"
                ) from None
            return {}
        with os.fdopen(descriptor, encoding="utf-8") as file:
            info = os.fstat(file.fileno())
            if os.name == "posix" and (info.st_uid != os.getuid() or info.st_mode & 0o022):
                raise Refused(f"the token store {self.path} is not yours alone (another owner, or writable by others)")
            try:
                data = json.load(file)
            except ValueError:
                return {}
        return data if isinstance(data, dict) and data.get("resource") == self.resource else {}

    def write(self, **changes: Any) -> None:
        data = {**self.read(), "server": self.server, "resource": self.resource, **changes}
        if self.client is not None:  # the config names the client: an older store's copy (and secret) goes
            data.pop("client", None)
        self._private_directory(create=True)
        # A fresh name, created exclusively and never through a symlink: nothing planted here is written to.
        temporary = self.path.with_name(f".{self.path.stem}.{secrets.token_hex(8)}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                json.dump(data, file, indent=2, sort_keys=True)
            os.replace(temporary, self.path)  # never a half-written token file
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise

    def _private_directory(self, *, create: bool) -> bool:
        """Whether the store's directory exists, once it is the user's alone (made 0700 if others may write)."""
        directory = self.path.parent
        if create:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            info = directory.stat()
        except FileNotFoundError:
            return False
        if os.name == "posix" and info.st_mode & 0o022:
            if info.st_uid != os.getuid():
                raise Refused(
                    f"the token directory {directory} is writable by others and is not yours: make it yours, mode 0700"
                )
            directory.chmod(0o700)
        return True

    def forget(self) -> bool:
        """Delete what is stored for this server; whether there was anything."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    def expires_at(self) -> float | None:
        value = self.read().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def recorded_issuer(self) -> Issuer | None:
        return Issuer.load(self.read().get("authorization_server"))

    async def get_tokens(self) -> OAuthToken | None:
        tokens = self.read().get("tokens")
        return _guarded(OAuthToken.model_validate(tokens)) if isinstance(tokens, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        _guarded(tokens)
        expires = None if tokens.expires_in is None else time.time() + tokens.expires_in
        self.write(
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            expires_at=expires,
            authorization_server=None if self.issuer is None else self.issuer.dump(),
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.client is not None:
            return self.client
        info = self.read().get("client")
        return OAuthClientInformationFull.model_validate(info) if isinstance(info, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.write(client=client_info.model_dump(mode="json", exclude_none=True))


def _guarded(tokens: OAuthToken) -> OAuthToken:
    """Tokens are secrets like any configured value: kept out of every log record from now on."""
    guard_logs(meaningful(t for t in (tokens.access_token, tokens.refresh_token) if t))
    return tokens

"""Signing in to a server that follows MCP's authorization spec, with the SDK's own OAuth client.

The SDK's `OAuthClientProvider` does the protocol (discovery, registration, PKCE, refresh); this
module gives it a place to keep what it obtains: one file per server and resource under the user's
config directory (`$XDG_CONFIG_HOME/mcpvend/tokens`, or the platform's equivalent), readable by the
user alone, never in the repository. Without a person to sign in (`lock`, the generated package) a
server that has no usable token is one `NeedsSignIn` naming the command that fixes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from .logs import guard_logs
from .targets import NeedsSignIn, OAuth, meaningful

# A loopback redirect the provider is built with when nobody can sign in: never visited.
_NO_REDIRECT = "http://127.0.0.1/callback"


def config_dir() -> Path:
    """mcpvend's directory in the user's config location (the XDG rule, or the platform's own)."""
    if base := os.environ.get("XDG_CONFIG_HOME"):
        return Path(base) / "mcpvend"
    if sys.platform == "win32" and (appdata := os.environ.get("APPDATA")):
        return Path(appdata) / "mcpvend"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "mcpvend"
    return Path.home() / ".config" / "mcpvend"


class TokenStore:
    """The SDK's `TokenStorage` for one server and resource: one JSON file, mode 0600, in a 0700 directory."""

    def __init__(self, server: str, resource: str, directory: Path | None = None) -> None:
        self.server = server
        self.resource = resource
        digest = hashlib.sha256(f"{server}\n{resource}".encode()).hexdigest()[:24]
        self.path = (directory or config_dir() / "tokens") / f"{digest}.json"

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("resource") == self.resource else {}

    def write(self, **changes: Any) -> None:
        data = {**self.read(), "server": self.server, "resource": self.resource, **changes}
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2, sort_keys=True)
        os.replace(temporary, self.path)  # never a half-written token file

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

    async def get_tokens(self) -> OAuthToken | None:
        tokens = self.read().get("tokens")
        return _guarded(OAuthToken.model_validate(tokens)) if isinstance(tokens, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        _guarded(tokens)
        expires = None if tokens.expires_in is None else time.time() + tokens.expires_in
        self.write(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        info = self.read().get("client")
        return OAuthClientInformationFull.model_validate(info) if isinstance(info, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.write(client=client_info.model_dump(mode="json", exclude_none=True))


def _guarded(tokens: OAuthToken) -> OAuthToken:
    """Tokens are secrets like any configured value: kept out of every log record from now on."""
    guard_logs(meaningful(t for t in (tokens.access_token, tokens.refresh_token) if t))
    return tokens


class StoredOAuth(OAuthClientProvider):
    """The SDK's provider, told when a stored access token expires, so that it refreshes it before use."""

    def __init__(self, store: TokenStore, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.store = store

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = self.store.expires_at()


def provider(
    url: str,
    oauth: OAuth,
    *,
    redirect_uri: str | None = None,
    on_url: Callable[[str], Awaitable[None]] | None = None,
    on_callback: Callable[[], Awaitable[AuthorizationCodeResult]] | None = None,
) -> StoredOAuth:
    """An httpx auth for `url`: signs in through `on_url`/`on_callback` when given, else raises NeedsSignIn."""

    async def cannot_sign_in(authorization_url: str) -> None:
        store = TokenStore(oauth.server, url)
        raise NeedsSignIn(oauth.server, "needs sign-in again" if store.read().get("tokens") else "needs sign-in")

    async def no_callback() -> AuthorizationCodeResult:
        raise NeedsSignIn(oauth.server)

    metadata = OAuthClientMetadata(
        client_name=oauth.client_name,
        redirect_uris=[redirect_uri or _NO_REDIRECT],  # type: ignore[list-item]  # pydantic parses the str
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=" ".join(oauth.scopes) or None,
        token_endpoint_auth_method="client_secret_post" if oauth.client_secret else "none",
    )
    store = TokenStore(oauth.server, url)
    if oauth.client_id is not None:  # a client registered beforehand: no dynamic registration
        registered = OAuthClientInformationFull(
            client_id=oauth.client_id, client_secret=oauth.client_secret, **metadata.model_dump(exclude_none=True)
        ).model_dump(mode="json", exclude_none=True)
        if store.read().get("client") != registered:  # written once, not at every start
            store.write(client=registered)
    return StoredOAuth(
        store,
        server_url=url,
        client_metadata=metadata,
        storage=store,
        redirect_handler=on_url or cannot_sign_in,
        callback_handler=on_callback or no_callback,
    )

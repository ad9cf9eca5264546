# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Signing in to a server that follows MCP's authorization spec, with the SDK's own OAuth client.

The SDK's `OAuthClientProvider` does the protocol (discovery, registration, PKCE, refresh); this
module gives it the token store (`oauth_store`) and holds it to three rules the SDK leaves open: a
refresh token goes only to the token endpoint of the authorization server that issued it (recorded at
sign-in, since the SDK forgets it between processes); every request of the flow passes
`oauth_policy.check_url`; a configured client secret is never written. Without a person to sign in
(`lock`, the generated package) a server that has no usable token is one `NeedsSignIn` naming the
command that fixes it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any
from urllib.parse import urljoin

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
)

from .oauth_policy import check_url
from .oauth_store import Issuer, TokenStore
from .targets import NeedsSignIn, OAuth

# A loopback redirect the provider is built with when nobody can sign in: never visited.
_NO_REDIRECT = "http://127.0.0.1/callback"


class StoredOAuth(OAuthClientProvider):
    """The SDK's provider, resuming from the token store: the expiry and the issuer of the stored tokens."""

    def __init__(self, store: TokenStore, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.store = store

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = self.store.expires_at()
        issuer = self.store.issuer = self.store.recorded_issuer()
        if issuer is not None:  # what discovery found at sign-in, so that a refresh goes where it did
            self.context.oauth_metadata = issuer.metadata
            self.context.protected_resource_metadata = issuer.resource
            self.context.auth_server_url = issuer.authorization_server

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, each request of its own (discovery, registration, token) checked before it is sent."""
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is not request:
                    await check_url(str(outgoing.url), self.context.server_url)
                outgoing = await flow.asend((yield outgoing))
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        """A code exchanged: the tokens it yields are stored with the authorization server that issued them."""
        context = self.context
        metadata = context.oauth_metadata
        origin = context.get_authorization_base_url(context.server_url)
        issuer = str(metadata.issuer) if metadata is not None else context.auth_server_url or origin
        # Without metadata (a legacy server), the SDK posts to the MCP server's own `/token`.
        token_endpoint = str(metadata.token_endpoint) if metadata is not None else urljoin(origin, "/token")
        self.store.issuer = Issuer(issuer, token_endpoint, metadata, context.protected_resource_metadata)
        await super()._handle_token_response(response)

    async def _refresh_token(self) -> httpx2.Request:
        """The refresh request, if it goes to the recorded token endpoint of an issuer the client agrees with."""
        refresh = await super()._refresh_token()
        issuer = self.store.issuer
        bound = self.context.client_info.issuer if self.context.client_info is not None else None
        if (
            issuer is None
            or refresh.url != httpx2.URL(issuer.token_endpoint)
            or (bound is not None and not issuers_match(bound, issuer.issuer))
        ):
            raise NeedsSignIn(self.store.server, "needs sign-in again (no confirmed record of who issued its tokens)")
        return refresh


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
    registered = None
    if oauth.client_id is not None:  # a client registered beforehand: no dynamic registration
        registered = OAuthClientInformationFull(
            client_id=oauth.client_id, client_secret=oauth.client_secret, **metadata.model_dump(exclude_none=True)
        )
    store = TokenStore(oauth.server, url, client=registered)
    return StoredOAuth(
        store,
        server_url=url,
        client_metadata=metadata,
        storage=store,
        redirect_handler=on_url or cannot_sign_in,
        callback_handler=on_callback or no_callback,
    )

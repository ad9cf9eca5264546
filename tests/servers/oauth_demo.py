"""An OAuth-protected MCP server on 127.0.0.1, built on the SDK's own authorization-server support.

By default the server is both the resource server and the authorization server (one origin). All OAuth
protocol handling is the SDK's (`mcp.server.auth`): MCPServer wires the RFC 8414 metadata, `/authorize`,
`/token`, `/register` (RFC 7591), `/revoke` (RFC 7009), the RFC 9728 protected-resource metadata,
and bearer authentication in front of `/mcp`, with PKCE checked by the SDK's token handler. This
module only supplies the in-memory provider that stores clients, codes and tokens. Consent is
automatic: `/authorize` answers 302 straight to the client's redirect_uri with `code` and `state`.
A loopback redirect URI matches on any port (RFC 8252 section 7.3), so a client registered
beforehand (POST /register, then its client_id in a config) can sign in from any callback port.

    python oauth_demo.py --port N [--token-lifetime SECONDS] [--scopes "mcp:read mcp:write"]
                         [--required-scopes "mcp:read"] [--no-metadata [--legacy-endpoints]]
                         [--auth-port A [--tls-cert CERT.pem --tls-key KEY.pem]]

--auth-port splits the origins: the authorization server (metadata, /authorize, /token, /register,
/revoke) is served on port A, over https with the given certificate, and the resource server on port
N keeps `/mcp`, its protected-resource metadata naming the server on A, and the /test routes. Both
run in this one process and share the provider, as a resource server shares an issuer's keys.

Endpoints (P = --port):
  http://127.0.0.1:P/mcp                                      streamable HTTP, bearer token required
  GET  /.well-known/oauth-protected-resource/mcp              RFC 9728 (issuer: http://127.0.0.1:P)
  GET  /.well-known/oauth-authorization-server                RFC 8414
  GET  /authorize   POST /token   POST /register   POST /revoke
  POST /test/expire           expire every access token now (the server's view only: see below)
  POST /test/revoke-refresh   revoke every refresh token
  GET  /test/state            counts of clients and live tokens, as JSON
  GET  /test/grants           every form POST either origin received: its origin, path, grant_type,
                              and whether it carried a refresh token (which origin saw which grant)

--no-metadata serves `/mcp` behind the same bearer check with no metadata routes and no
authorization endpoints at all: a 401 carries `WWW-Authenticate: Bearer` without
`resource_metadata`, and there is no way to obtain a token. With --legacy-endpoints as well,
`/authorize`, `/token`, `/register` and `/revoke` are served at their default paths (what a
2025-03-26 client falls back to), still without any metadata document.

Access tokens live --token-lifetime seconds (default 3600) and are announced as `expires_in`;
refresh tokens rotate on every use and do not expire. A client only learns an access token has
expired from `expires_in`: after POST /test/expire the server answers 401 to a token the client
still thinks is valid.

Tools: `convert_temperature` (the same as tests/servers/demo.py) and `whoami` (the client id,
scopes, subject and resource of the access token of the call).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qs

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    ProviderTokenVerifier,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.types import ToolAnnotations
from pydantic import AnyUrl, BaseModel, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SUBJECT = "demo-user"
CODE_LIFETIME = 300


class LoopbackClient(OAuthClientInformationFull):
    """A client whose loopback redirect URIs match on any port (RFC 8252 section 7.3): a native app
    registered once cannot know the port its next sign-in listens on."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        def loose(url: AnyUrl) -> tuple[str, str | None, str | None]:
            return url.scheme, url.host, url.path

        registered = self.redirect_uris or []
        if (
            redirect_uri is not None
            and redirect_uri.host == "127.0.0.1"
            and loose(redirect_uri) in map(loose, registered)
        ):
            return redirect_uri
        return super().validate_redirect_uri(redirect_uri)


@dataclass
class GrantLog:
    """Every form POST (the token and revocation requests) each origin received, in order."""

    entries: list[dict[str, object]] = field(default_factory=list)

    def wrap(self, app: ASGIApp, origin: str) -> ASGIApp:
        async def recorded(scope: Scope, receive: Receive, send: Send) -> None:
            headers = dict(scope.get("headers", []))
            form = headers.get(b"content-type", b"").startswith(b"application/x-www-form-urlencoded")
            if scope["type"] != "http" or scope["method"] != "POST" or not form:
                await app(scope, receive, send)
                return
            messages: list[Message] = [await receive()]
            while messages[-1].get("more_body"):
                messages.append(await receive())
            fields = parse_qs(b"".join(m.get("body", b"") for m in messages).decode("latin-1"))
            self.entries.append(
                {
                    "origin": origin,
                    "path": scope["path"],
                    "grant_type": fields.get("grant_type", [None])[0],
                    "refresh_token": "refresh_token" in fields,
                }
            )

            async def replay() -> Message:
                return messages.pop(0) if messages else await receive()

            await app(scope, replay, send)

        return recorded


@dataclass
class InMemoryProvider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """Clients, codes and tokens in dictionaries; consent is automatic.

    Every access token is issued with a refresh token; the two are revoked together, and a refresh
    rotates both. `resource` is the one resource this server protects: a request naming another
    resource is refused with `invalid_target`, and a request naming none gets a token for it anyway.
    """

    resource: str
    token_lifetime: int
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access_tokens: dict[str, AccessToken] = field(default_factory=dict)
    refresh_tokens: dict[str, RefreshToken] = field(default_factory=dict)
    # access token -> the refresh token issued with it, and back
    pairs: dict[str, str] = field(default_factory=dict)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = LoopbackClient.model_validate(client_info.model_dump())

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        resource = self._resource_for(params.resource)
        if resource is None:
            raise AuthorizeError(error="invalid_target", error_description=f"unknown resource {params.resource}")
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes if params.scopes is not None else (client.scope or "").split(),
            expires_at=time.time() + CODE_LIFETIME,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=resource,
            subject=SUBJECT,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        code = self.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        if self.codes.pop(authorization_code.code, None) is None:  # single use
            raise TokenError(error="invalid_grant", error_description="authorization code was already used")
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        token = self.refresh_tokens.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if refresh_token.token not in self.refresh_tokens:
            raise TokenError(error="invalid_grant", error_description="refresh token was revoked")
        self._revoke_pair(refresh_token.token)  # rotation: the old refresh token and its access token end here
        return self._issue(client.client_id, scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access_tokens.get(token)
        if access is None or (access.expires_at is not None and access.expires_at <= time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self._revoke_pair(token.token)

    def expire_access_tokens(self) -> int:
        """Expire every live access token now; return how many there were."""
        now = int(time.time())
        live = [t for t in self.access_tokens.values() if t.expires_at is None or t.expires_at > now]
        for token in live:
            self.access_tokens[token.token] = token.model_copy(update={"expires_at": now - 1})
        return len(live)

    def revoke_refresh_tokens(self) -> int:
        """Revoke every refresh token (their access tokens stay valid until they expire)."""
        count = len(self.refresh_tokens)
        for token in list(self.refresh_tokens):
            access = self.pairs.pop(token, None)
            if access is not None:
                self.pairs.pop(access, None)
            del self.refresh_tokens[token]
        return count

    def _resource_for(self, requested: str | None) -> str | None:
        if requested is None or requested.rstrip("/") == self.resource.rstrip("/"):
            return self.resource
        return None

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = secrets.token_urlsafe(32)
        refresh = secrets.token_urlsafe(32)
        expires_at = int(time.time()) + self.token_lifetime
        self.access_tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires_at, resource=resource, subject=SUBJECT
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject=SUBJECT
        )
        self.pairs[access] = refresh
        self.pairs[refresh] = access
        return OAuthToken(
            access_token=access,
            expires_in=self.token_lifetime,
            scope=" ".join(scopes) if scopes else None,
            refresh_token=refresh,
        )

    def _revoke_pair(self, token: str) -> None:
        other = self.pairs.pop(token, None)
        for name in (token, other):
            if name is not None:
                self.access_tokens.pop(name, None)
                self.refresh_tokens.pop(name, None)
                self.pairs.pop(name, None)


class Identity(BaseModel):
    client_id: str = Field(description="The OAuth client the access token was issued to.")
    scopes: list[str] = Field(description="The scopes the access token grants.")
    subject: str | None = Field(description="The resource owner.")
    resource: str | None = Field(description="The resource (RFC 8707) the token was issued for.")


def convert_temperature(value: float, to: Literal["celsius", "fahrenheit", "kelvin"] = "celsius") -> str:
    """Convert a temperature given in Celsius to another unit."""
    converted = {"celsius": value, "fahrenheit": value * 9 / 5 + 32, "kelvin": value + 273.15}[to]
    return f"{converted:.2f} {to}"


def whoami() -> Identity:
    """Describe the access token this call was made with."""
    token = get_access_token()
    if token is None:
        raise ToolError("no access token in this request")
    return Identity(client_id=token.client_id, scopes=token.scopes, subject=token.subject, resource=token.resource)


@dataclass(frozen=True)
class Options:
    port: int
    token_lifetime: int = 3600
    scopes: tuple[str, ...] = ("mcp:read", "mcp:write")
    required_scopes: tuple[str, ...] = ("mcp:read",)
    metadata: bool = True
    legacy_endpoints: bool = False
    auth_port: int | None = None  # the authorization server on its own origin
    tls: tuple[str, str] | None = None  # its certificate and key files: https

    @property
    def issuer(self) -> str:
        if self.auth_port is None:
            return f"http://127.0.0.1:{self.port}"
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.auth_port}"


@dataclass(frozen=True)
class Listener:
    """One origin of the server: its app, where it listens, and its certificate if it speaks https."""

    app: ASGIApp
    port: int
    tls: tuple[str, str] | None = None


def build_app(options: Options) -> tuple[list[Listener], InMemoryProvider, GrantLog]:
    """The server's origins (the authorization server's first), its provider and its log of token requests."""
    origin = f"http://127.0.0.1:{options.port}"
    resource = f"{origin}/mcp"
    provider = InMemoryProvider(resource=resource, token_lifetime=options.token_lifetime)
    grants = GrantLog()
    registration = ClientRegistrationOptions(
        enabled=True, valid_scopes=list(options.scopes), default_scopes=list(options.scopes)
    )
    revocation = RevocationOptions(enabled=True)
    # Strings, not AnyHttpUrl(...): AuthSettings keeps a path-less issuer without a trailing slash only
    # when it parses the URL itself, and clients compare the issuer as a string (RFC 8414 section 3.3).
    settings: dict[str, object] = {
        "issuer_url": options.issuer,
        "required_scopes": list(options.required_scopes) or None,
        "client_registration_options": registration,
        "revocation_options": revocation,
    }
    split = options.auth_port is not None
    if options.metadata and not split:
        # The SDK serves every OAuth route from the provider and these settings.
        auth = AuthSettings.model_validate(
            {**settings, "resource_server_url": resource, "validate_token_resource": True}
        )
        server: MCPServer[object] = MCPServer(
            name="mcpvend-oauth-demo", version="1.0.0", auth_server_provider=provider, auth=auth, log_level="WARNING"
        )
    else:
        # A token verifier: bearer auth on /mcp, no authorization server routes; with its own metadata
        # naming the authorization server when that is on another origin, else none.
        auth = AuthSettings.model_validate(
            {**settings, "resource_server_url": resource if split else None, "validate_token_resource": split}
        )
        server = MCPServer(
            name="mcpvend-oauth-demo",
            version="1.0.0",
            token_verifier=ProviderTokenVerifier(provider),
            auth=auth,
            log_level="WARNING",
        )
    server.add_tool(
        convert_temperature,
        title="Convert temperature",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
    )
    server.add_tool(
        whoami,
        title="Who am I",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
    )

    async def expire(request: Request) -> Response:
        return JSONResponse({"expired": provider.expire_access_tokens()})

    async def revoke_refresh(request: Request) -> Response:
        return JSONResponse({"revoked": provider.revoke_refresh_tokens()})

    async def state(request: Request) -> Response:
        now = time.time()
        live = [t for t in provider.access_tokens.values() if t.expires_at is None or t.expires_at > now]
        return JSONResponse(
            {
                "clients": len(provider.clients),
                "access_tokens": len(live),
                "refresh_tokens": len(provider.refresh_tokens),
            }
        )

    async def granted(request: Request) -> Response:
        return JSONResponse(grants.entries)

    server.custom_route("/test/expire", methods=["POST"])(expire)
    server.custom_route("/test/revoke-refresh", methods=["POST"])(revoke_refresh)
    server.custom_route("/test/state", methods=["GET"])(state)
    server.custom_route("/test/grants", methods=["GET"])(granted)

    app = server.streamable_http_app(host="127.0.0.1")
    routes = create_auth_routes(
        provider, issuer_url=auth.issuer_url, client_registration_options=registration, revocation_options=revocation
    )
    listeners = [Listener(grants.wrap(app, origin), options.port)]
    if split:
        assert options.auth_port is not None
        authorization = Starlette(routes=routes)
        listeners.insert(0, Listener(grants.wrap(authorization, options.issuer), options.auth_port, options.tls))
    elif not options.metadata and options.legacy_endpoints:
        app.router.routes.extend(r for r in routes if not r.path.startswith("/.well-known/"))
    return listeners, provider, grants


async def serve(listeners: list[Listener]) -> None:
    """Each origin in turn, every one listening before the next starts (the resource server last)."""
    servers = [
        uvicorn.Server(
            uvicorn.Config(
                one.app,
                host="127.0.0.1",
                port=one.port,
                log_level="warning",
                ssl_certfile=one.tls[0] if one.tls else None,
                ssl_keyfile=one.tls[1] if one.tls else None,
            )
        )
        for one in listeners
    ]
    running = []
    for server in servers:
        running.append(asyncio.create_task(server.serve()))
        while not server.started and not running[-1].done():
            await asyncio.sleep(0.01)
    await asyncio.gather(*running)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token-lifetime", type=int, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--scopes", default="mcp:read mcp:write", help="the scopes clients may register and request")
    parser.add_argument("--required-scopes", default="mcp:read", help="scopes /mcp requires ('' for none)")
    parser.add_argument("--no-metadata", action="store_true", help="bearer auth on /mcp without OAuth metadata")
    parser.add_argument(
        "--legacy-endpoints", action="store_true", help="with --no-metadata: serve /authorize, /token, ... anyway"
    )
    parser.add_argument("--auth-port", type=int, help="serve the authorization server on this port (split origins)")
    parser.add_argument("--tls-cert", help="with --auth-port: the authorization server's certificate (PEM): https")
    parser.add_argument("--tls-key", help="with --tls-cert: its private key (PEM)")
    args = parser.parse_args()
    if args.legacy_endpoints and not args.no_metadata:
        parser.error("--legacy-endpoints goes with --no-metadata")
    if args.auth_port is not None and args.no_metadata:
        parser.error("--auth-port needs the metadata that names the authorization server")
    if (args.tls_cert is None) != (args.tls_key is None) or (args.tls_cert and args.auth_port is None):
        parser.error("--tls-cert and --tls-key go together, with --auth-port")
    options = Options(
        port=args.port,
        token_lifetime=args.token_lifetime,
        scopes=tuple(args.scopes.split()),
        required_scopes=tuple(args.required_scopes.split()),
        metadata=not args.no_metadata,
        legacy_endpoints=args.legacy_endpoints,
        auth_port=args.auth_port,
        tls=(args.tls_cert, args.tls_key) if args.tls_cert else None,
    )
    listeners, _, _ = build_app(options)
    asyncio.run(serve(listeners))


if __name__ == "__main__":
    main()

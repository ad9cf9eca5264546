"""A stand-in for the user's browser in OAuth sign-in tests.

`complete_sign_in(url)` does what a browser does with an authorization URL on a server that
consents on its own (tests/servers/oauth_demo.py): it requests the URL and follows the
authorization server's redirects, one at a time, up to and including the request to the
client's redirect_uri (the loopback callback the client listens on), and stops there. It
never follows a redirect the callback itself answers with.

It is synchronous (httpx2's blocking client): call it from a thread, for example from the
`redirect_handler` of `mcp.client.auth.OAuthClientProvider` via `anyio.to_thread.run_sync`,
so the event loop stays free to serve the callback.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import httpx2

MAX_REDIRECTS = 10


class SignInError(RuntimeError):
    """The authorization server did not send the browser to the callback."""


def _endpoint(url: str) -> tuple[str, str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower(), parts.path or "/"


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _query_param(url: str, name: str) -> str | None:
    return next((value for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True) if key == name), None)


def complete_sign_in(url: str, *, timeout: float = 10.0) -> None:
    """Open the authorization `url` and follow its redirects until the redirect_uri has been requested.

    The callback is recognised by the `redirect_uri` parameter of `url` (scheme, host, port and
    path); when `url` has none, by the first redirect that leaves the authorization server's
    origin. Whatever the callback answers is not inspected. Raises `SignInError` when a response
    on the way is not a redirect (an error page of the authorization server, say), or after
    MAX_REDIRECTS redirects.
    """
    redirect_uri = _query_param(url, "redirect_uri")
    authorization_origin = _origin(url)

    def is_callback(target: str) -> bool:
        if redirect_uri is not None:
            return _endpoint(target) == _endpoint(redirect_uri)
        return _origin(target) != authorization_origin

    with httpx2.Client(follow_redirects=False, timeout=timeout) as client:
        target = url
        for _ in range(MAX_REDIRECTS + 1):
            response = client.get(target)
            if is_callback(target):
                return
            location = response.headers.get("location")
            if not response.is_redirect or location is None:
                raise SignInError(
                    f"GET {target} answered {response.status_code}, not a redirect: {response.text[:500]}"
                )
            target = urljoin(target, location)
        raise SignInError(f"more than {MAX_REDIRECTS} redirects from {url}")


def tampered(url: str) -> str:
    """`url` with the value of its `state` query parameter changed (every other parameter kept, in order)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if not any(key == "state" for key, _ in query):
        raise ValueError(f"no state parameter in {url}")
    changed = [(key, value + "-tampered" if key == "state" else value) for key, value in query]
    return urlunsplit(parts._replace(query=urlencode(changed)))

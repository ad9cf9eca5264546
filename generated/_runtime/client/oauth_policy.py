# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Where the OAuth flow may send a request, and the one-line refusals of what is unsafe.

The SDK's OAuth client fetches whatever a server names: the `resource_metadata` URL of its
`WWW-Authenticate`, the authorization server of its metadata, that server's endpoints. During a
`lock` or a call of the generated package nobody watches those requests, so a hostile server could
aim them at any port of the user's machine or of the private network (a blind SSRF). A request of
the flow goes to the MCP server's own origin, or over https; and to a loopback, private or
link-local address only when the MCP server itself is in that range.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import SplitResult, urlsplit

import anyio

_DEFAULT_PORTS = {"http": 80, "https": 443}


class Refused(Exception):
    """mcpvend will not go on, for the reason the message gives (one line; callers add the server's name)."""


async def check_url(url: str, server_url: str) -> None:
    """Raise Refused unless the OAuth flow of the MCP server at `server_url` may send a request to `url`."""
    target, server = urlsplit(url), urlsplit(server_url)
    if _origin(target) == _origin(server):
        return
    host = target.netloc.rpartition("@")[2]  # the host and port, never a userinfo
    if target.scheme != "https":
        raise Refused(f"refused an OAuth request to {host}: it is neither https nor the server's own origin")
    unsafe = await _ranges(target) - await _ranges(server) - {"public"}
    if unsafe:
        raise Refused(
            f"refused an OAuth request to {host}: a {' and '.join(sorted(unsafe))} address,"
            " where the server itself is not"
        )


def _origin(url: SplitResult) -> tuple[str, str, int | None]:
    return url.scheme, url.hostname or "", url.port or _DEFAULT_PORTS.get(url.scheme)


async def _ranges(url: SplitResult) -> set[str]:
    """The kinds of address `url`'s host is (an IP literal, or every address its name resolves to)."""
    host = url.hostname or ""
    try:
        return {_kind(host)}
    except ValueError:  # a name, not an address
        pass
    try:
        found = await anyio.getaddrinfo(host, url.port or _DEFAULT_PORTS.get(url.scheme), type=socket.SOCK_STREAM)
    except OSError:  # no address, so no connection either: the request fails on its own
        return set()
    return {_kind(str(address[4][0])) for address in found}


def _kind(address: str) -> str:
    """loopback, link-local, private, reserved (any other non-global or multicast address) or public."""
    ip = ipaddress.ip_address(address.partition("%")[0])  # without an IPv6 zone
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_unspecified:  # 0.0.0.0 and :: reach this host too
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_private:
        return "private"
    return "public" if ip.is_global and not ip.is_multicast else "reserved"

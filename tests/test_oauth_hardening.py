"""OAuth sign-in under attack, each attack done for real: a refresh token sent where it was not issued,
a server steering the flow at other ports and networks (SSRF), a configured client secret written to
disk, and a token store written through a planted symlink or kept in a directory others may write.

The servers are tests/servers/oauth_demo.py (the SDK's `mcp/server/auth`), one origin or split: the
authorization server over https on one port (its certificate made here), the MCP server on another.
"""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import json
import os
import re
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import anyio
import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp.shared.auth import OAuthToken

from conftest import PY, SERVERS, Run, free_port, listening, mcpvend, write_config
from mcpvend.runtime.client.oauth_policy import Refused, check_url
from mcpvend.runtime.client.oauth_store import TokenStore
from oauth_browser import complete_sign_in

DEMO = str(SERVERS / "oauth_demo.py")
CALL = (
    "import asyncio, generated\n"
    "async def main():\n"
    "    async with generated.toolset(['remote'], mode='direct') as ts:\n"
    "        print((await ts.call('remote__convert_temperature', {'value': 100, 'to': 'fahrenheit'})).text)\n"
    "asyncio.run(main())\n"
)


@dataclass(frozen=True)
class Origins:
    resource: str  # the MCP server's origin (its /mcp, its metadata, the /test routes)
    authorization: str  # the authorization server's origin (the same one unless split)

    def grants(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = httpx2.get(f"{self.resource}/test/grants").json()
        return entries


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A self-signed certificate for 127.0.0.1 (its key beside it), the https authorization server's own CA."""
    directory = tmp_path_factory.mktemp("tls")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    today = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(today - datetime.timedelta(days=1))
        .not_valid_after(today + datetime.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (directory / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (directory / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return directory / "cert.pem"


@pytest.fixture(scope="module")
def split(certificate: Path) -> Iterator[Origins]:
    """The authorization server on https://127.0.0.1:A, the MCP server on http://127.0.0.1:P: both real."""
    auth_port = free_port()
    tls = ["--tls-cert", str(certificate), "--tls-key", str(certificate.with_name("key.pem"))]
    with listening([PY, DEMO, "--port", "{port}", "--auth-port", str(auth_port), *tls], "split OAuth demo") as port:
        yield Origins(f"http://127.0.0.1:{port}", f"https://127.0.0.1:{auth_port}")


@pytest.fixture(scope="module")
def single() -> Iterator[Origins]:
    """One origin that is both the MCP server and its authorization server."""
    with listening([PY, DEMO, "--port", "{port}"], "OAuth demo") as port:
        yield Origins(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}")


@dataclass
class Home:
    """A project whose server 'remote' signs in, and a user config directory of its own (the token store)."""

    root: Path
    config: Path
    origins: Origins
    env: dict[str, str]

    def run(self, *args: str) -> Run:
        """The CLI in a new process: nothing the SDK learned in an earlier one is in memory."""
        return mcpvend(*args, cwd=self.root, env=self.env, process=True)

    def login(self) -> Run:
        """`mcpvend login --no-browser`, its printed URL followed as a browser would."""
        command = [PY, "-m", "mcpvend", "login", "remote", "--no-browser"]
        proc = subprocess.Popen(command, cwd=self.root, env=self.env, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.strip().startswith(("https://", "http://")):
                complete_sign_in(line.strip())
                break
        said = "".join(lines) + proc.stderr.read()
        return Run(proc.wait(timeout=60), "", said)

    @property
    def store(self) -> Path:
        (path,) = (self.config / "mcpvend" / "tokens").glob("*.json")
        return path

    def stored(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.store.read_text(encoding="utf-8"))
        return data

    def edit(self, change: Callable[[dict[str, Any]], None]) -> None:
        data = self.stored()
        change(data)
        self.store.write_text(json.dumps(data), encoding="utf-8")

    def expire(self) -> None:
        """The server ends the access token, and the store says it has ended: the next use refreshes."""
        httpx2.post(f"{self.origins.resource}/test/expire").raise_for_status()
        self.edit(lambda data: data.update(expires_at=1.0))

    def files(self) -> dict[Path, bytes]:
        return {p: p.read_bytes() for base in (self.root, self.config) for p in base.rglob("*") if p.is_file()}


def make_home(tmp_path: Path, origins: Origins, **settings: Any) -> Home:
    root, config = tmp_path / "project", tmp_path / "config"
    root.mkdir()
    server = {"url": f"{origins.resource}/mcp", "auth": "oauth", "scopes": ["mcp:read"], **settings}
    write_config(root, {"remote": server})
    env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
    return Home(root, config, origins, env)


@pytest.fixture
def home(tmp_path: Path, split: Origins, certificate: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate))  # the browser stand-in trusts the https server too
    return make_home(tmp_path, split)


def one_line_error(run: Run) -> str:
    assert run.code == 2 and "Traceback" not in run.err, run.err
    (line,) = [line for line in run.err.splitlines() if line.startswith("error: ")]
    return line


# --- 1. a refresh token goes only to the authorization server that issued it --------------------------


def test_a_refresh_goes_to_the_issuing_authorization_server_in_every_new_process(home: Home) -> None:
    assert home.login().code == 0
    recorded = home.stored()["authorization_server"]
    authorization = home.origins.authorization
    assert (recorded["issuer"], recorded["token_endpoint"]) == (authorization, f"{authorization}/token")
    assert recorded["resource_metadata"]["authorization_servers"] == [authorization]
    before = len(home.origins.grants())

    home.expire()
    first = home.stored()["tokens"]["access_token"]
    locked = home.run("lock")
    assert locked.code == 0, locked.err
    assert home.stored()["tokens"]["access_token"] != first  # refreshed, without a browser

    home.expire()  # and once more after the restart, from the generated package, after the store was rewritten
    assert home.run("generate").code == 0
    called = subprocess.run([PY, "-c", CALL], cwd=home.root, env=home.env, capture_output=True, text=True)
    assert called.stdout.strip() == "212.00 fahrenheit", called.stderr

    grants = home.origins.grants()[before:]
    assert [g for g in grants if g["origin"] == home.origins.resource] == []  # the MCP server saw no token request
    refreshes = [(g["origin"], g["path"]) for g in grants if g["refresh_token"]]
    assert refreshes == [(authorization, "/token")] * 2
    assert [g["grant_type"] for g in grants] == ["refresh_token"] * 2


def _no_record(data: dict[str, Any]) -> None:  # a store written before mcpvend recorded the issuer
    del data["authorization_server"]


def _another_issuer(data: dict[str, Any]) -> None:  # the metadata names an issuer the record does not
    data["authorization_server"]["metadata"]["issuer"] = "https://elsewhere.example"


def _client_of_another_issuer(data: dict[str, Any]) -> None:  # the registration is bound to another server
    data["client"]["issuer"] = "https://elsewhere.example"


@pytest.mark.parametrize("tamper", [_no_record, _another_issuer, _client_of_another_issuer])
def test_a_token_whose_issuer_is_not_confirmed_is_never_sent_as_a_refresh(
    home: Home, tamper: Callable[[dict[str, Any]], None]
) -> None:
    assert home.login().code == 0
    before = len(home.origins.grants())
    home.expire()
    home.edit(tamper)
    locked = home.run("lock")
    assert one_line_error(locked) == (
        "error: server 'remote' needs sign-in again (no confirmed record of who issued its tokens):"
        " run mcpvend login remote"
    )
    assert [g for g in home.origins.grants()[before:] if g["refresh_token"]] == []


# --- 2. the flow's requests stay on the server's origin or go over https, never to private ranges ------


Answer = tuple[int, dict[str, str], bytes]  # status, headers, body


class Stub(http.server.ThreadingHTTPServer):
    """A loopback HTTP server that answers each request with `answer(method, path)` and records it."""

    def __init__(self, answer: Callable[[str, str], Answer]) -> None:
        self.answer = answer
        self.hits: list[str] = []
        super().__init__(("127.0.0.1", 0), StubHandler)

    @contextmanager
    def serving(self) -> Iterator[int]:
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        try:
            yield self.server_address[1]
        finally:
            self.shutdown()
            self.server_close()


class StubHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        stub = cast(Stub, self.server)
        stub.hits.append(f"{self.command} {self.path}")
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        status, headers, body = stub.answer(self.command, self.path)
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


NOT_HTTPS = "it is neither https nor the server's own origin"
STEERED = {  # where the hostile server sends the flow (the recorder's port is {port}), and the refusal
    "resource_metadata at another loopback port": (
        'Bearer resource_metadata="http://127.0.0.1:{port}/.well-known/oauth-protected-resource"',
        None,
        f"127.0.0.1:{{port}}: {NOT_HTTPS}",
    ),
    "an authorization server at another loopback port": (
        "Bearer",
        "http://127.0.0.1:{port}",
        f"127.0.0.1:{{port}}: {NOT_HTTPS}",
    ),
    "an authorization server at the cloud metadata address": (
        "Bearer",
        "https://169.254.169.254",
        "169.254.169.254: a link-local address, where the server itself is not",
    ),
}


@pytest.mark.parametrize("steer", STEERED, ids=list(STEERED))
def test_a_hostile_server_cannot_steer_the_flow_at_other_ports_or_private_addresses(tmp_path: Path, steer: str) -> None:
    challenge, authorization_server, refusal = STEERED[steer]
    metadata: dict[str, Any] = {}

    def hostile_answer(method: str, path: str) -> Answer:
        """401 to every MCP request, steering the flow; its own metadata (same origin: allowed) steering it too."""
        if path.startswith("/.well-known/oauth-protected-resource"):
            return 200, {"Content-Type": "application/json"}, json.dumps(metadata).encode()
        return (401, {"WWW-Authenticate": challenge.format(port=port)}, b"") if method == "POST" else (404, {}, b"")

    recorder = Stub(lambda method, path: (404, {}, b""))
    with recorder.serving() as port, Stub(hostile_answer).serving() as hostile_port:
        origin = f"http://127.0.0.1:{hostile_port}"
        metadata.update(
            resource=f"{origin}/mcp", authorization_servers=[(authorization_server or origin).format(port=port)]
        )
        home = make_home(tmp_path, Origins(origin, origin))
        locked = mcpvend("lock", cwd=home.root, env=home.env)
        signed = home.login()
    why = f"refused an OAuth request to {refusal.format(port=port)}"
    assert one_line_error(locked) == f"error: server 'remote': {why}"
    assert one_line_error(signed) == f"error: server 'remote': sign-in failed: {why}"
    assert recorder.hits == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("url", "server", "refusal"),
    [
        ("http://127.0.0.1:8000/.well-known/oauth-protected-resource", "http://127.0.0.1:8000/mcp", None),
        ("https://127.0.0.1:9000/token", "http://127.0.0.1:8000/mcp", None),  # https, and the server is loopback too
        ("https://10.0.0.9/token", "http://10.0.0.5/mcp", None),  # the server itself is on the private network
        ("https://93.184.216.34/token", "http://127.0.0.1:8000/mcp", None),
        ("http://127.0.0.1:9000/", "http://127.0.0.1:8000/mcp", f"to 127.0.0.1:9000: {NOT_HTTPS}"),
        ("http://user:pass@127.0.0.1:9000/", "http://127.0.0.1:8000/mcp", f"to 127.0.0.1:9000: {NOT_HTTPS}"),
        ("https://10.0.0.7/", "http://127.0.0.1:8000/mcp", "to 10.0.0.7: a private address"),
        ("https://169.254.169.254/", "https://93.184.216.34/mcp", "to 169.254.169.254: a link-local address"),
        ("https://[::ffff:127.0.0.1]/", "https://93.184.216.34/mcp", r"to \[::ffff:127.0.0.1\]: a loopback address"),
        ("https://0.0.0.0:9/", "https://93.184.216.34/mcp", "to 0.0.0.0:9: a loopback address"),
        ("https://localhost:9/", "https://93.184.216.34/mcp", "to localhost:9: a loopback address"),  # by its name
        ("https://100.64.0.1/", "https://93.184.216.34/mcp", "to 100.64.0.1: a reserved address"),
        ("https://224.0.0.1/", "https://93.184.216.34/mcp", "to 224.0.0.1: a reserved address"),
    ],
)
async def test_the_flow_reaches_the_servers_origin_or_https_and_no_range_the_server_is_not_in(
    url: str, server: str, refusal: str | None
) -> None:
    if refusal is None:
        await check_url(url, server)
    else:
        with pytest.raises(Refused, match=f"^refused an OAuth request {refusal}") as refused:
            await check_url(url, server)
        assert "pass" not in str(refused.value)


# --- 3. a client secret from the config stays in memory -----------------------------------------------


def test_a_configured_client_secret_is_used_from_memory_and_never_written(tmp_path: Path, single: Origins) -> None:
    registration = {
        "client_name": "registered beforehand",
        "redirect_uris": ["http://127.0.0.1/callback"],  # any port (RFC 8252): the demo's loopback rule
        "token_endpoint_auth_method": "client_secret_post",
        "grant_types": ["authorization_code", "refresh_token"],
        "scope": "mcp:read",
    }
    client = httpx2.post(f"{single.authorization}/register", json=registration).raise_for_status().json()
    secret = client["client_secret"]
    home = make_home(tmp_path, single, client_id=client["client_id"], client_secret="${DEMO_CLIENT_SECRET}")
    home.env["DEMO_CLIENT_SECRET"] = secret
    before = len(single.grants())

    plain = home.run("lock")
    assert one_line_error(plain) == "error: server 'remote' needs sign-in: run mcpvend login remote"
    assert [path for path, data in home.files().items() if secret.encode() in data] == []

    assert home.login().code == 0
    home.expire()
    refreshed = home.run("lock")
    assert refreshed.code == 0, refreshed.err
    # The token endpoint authenticates this client by its secret: both grants went through with it.
    assert [g["grant_type"] for g in single.grants()[before:]] == ["authorization_code", "refresh_token"]
    assert "client" not in home.stored()
    assert [path for path, data in home.files().items() if secret.encode() in data] == []


# --- 4. the store: never written through a planted symlink, never kept where others may write ----------

UNREACHABLE = Origins("http://127.0.0.1:1", "http://127.0.0.1:1")  # each refusal comes before any request
NOBODY = f"{UNREACHABLE.resource}/mcp"
TOKENS = OAuthToken(access_token="access-" + "a" * 20, refresh_token="refresh-" + "r" * 20, expires_in=60)


def test_a_write_goes_through_nothing_planted_beside_the_store(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.mkdir(mode=0o700)
    store = TokenStore("remote", NOBODY, tokens)
    victim = tmp_path / "victim"
    victim.write_text("the user's own file\n")
    victim.chmod(0o644)
    store.path.with_suffix(".tmp").symlink_to(victim)  # the temporary file's name, planted as a symlink
    anyio.run(store.set_tokens, TOKENS)
    assert victim.read_text() == "the user's own file\n" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert stat.S_ISREG(store.path.lstat().st_mode) and stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert json.loads(store.path.read_text())["tokens"]["access_token"] == TOKENS.access_token


def test_a_symlinked_store_file_is_refused_in_one_line(tmp_path: Path) -> None:
    home = make_home(tmp_path, UNREACHABLE)
    tokens = home.config / "mcpvend" / "tokens"
    tokens.mkdir(parents=True, mode=0o700)
    store = TokenStore("remote", NOBODY, tokens)
    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps({"server": "remote", "resource": NOBODY, "tokens": TOKENS.model_dump()}))
    store.path.symlink_to(planted)
    why = f"the token store {store.path} is a symbolic link, which mcpvend does not follow"
    for command in (("lock",), ("auth", "status")):
        assert one_line_error(mcpvend(*command, cwd=home.root, env=home.env)) == f"error: server 'remote': {why}"


def test_a_store_file_others_may_write_is_refused(tmp_path: Path) -> None:
    store = TokenStore("remote", NOBODY, tmp_path / "tokens")
    anyio.run(store.set_tokens, TOKENS)
    store.path.chmod(0o666)
    with pytest.raises(Refused, match=f"^the token store {re.escape(str(store.path))} is not yours alone"):
        store.read()


def test_a_directory_others_may_write_is_made_private_when_it_is_ours(tmp_path: Path) -> None:
    home = make_home(tmp_path, UNREACHABLE)
    tokens = home.config / "mcpvend" / "tokens"
    tokens.mkdir(parents=True)
    tokens.chmod(0o777)
    status = mcpvend("auth", "status", cwd=home.root, env=home.env)
    assert status.code == 0 and status.out.strip() == "remote: not signed in (mcpvend login remote)", status.err
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o700


@pytest.fixture
def theirs(tmp_path: Path) -> Path:
    """A directory others may write to and someone else owns: made so as root, else the system's /tmp."""
    if os.getuid() == 0:
        directory = tmp_path / "theirs"
        directory.mkdir()
        directory.chmod(0o777)
        os.chown(directory, 65534, 65534)
        return directory
    system = Path("/tmp")
    if system.stat().st_uid == os.getuid() or not system.stat().st_mode & 0o002:
        pytest.skip("no directory here is writable by others and owned by someone else")
    return system


def test_a_directory_others_may_write_and_someone_else_owns_is_refused(theirs: Path) -> None:
    before = theirs.stat()
    store = TokenStore("remote", NOBODY, theirs)
    why = f"^the token directory {re.escape(str(theirs))} is writable by others and is not yours: make it yours"
    with pytest.raises(Refused, match=why):
        store.read()
    with pytest.raises(Refused, match=why):
        anyio.run(store.set_tokens, TOKENS)
    assert theirs.stat().st_mode == before.st_mode and not store.path.exists()

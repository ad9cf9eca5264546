"""Secret values in env, headers, URLs and arguments reach no lockfile, generated file, report, log or error.

One project is locked and generated with sentinel secrets passed as `${VAR}`s: in a stdio
server's `env` and `args`, in an HTTP server's `Authorization` header and URL query, and in
another's URL userinfo. Every command, on its success and failure paths, and the runtime's
calls (and `mcpvend serve`) are then checked: stdout, stderr, log records, the texts the model
sees, and every file under the project. Each check has its control: the place where the secret
was (a server's echo, its environment dump, a logged URL) shows `***` instead, so the value
really went by and was taken out.

Tool results are not redacted (see `test_runtime_results_are_the_servers_data`).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sys
import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, stdio_client

from conftest import GOOD_TOOLS, PY, Run, free_port, mcpvend, replay, write_config, write_tools
from mcpvend.runtime.client.disguises import redact
from mcpvend.runtime.client.targets import HttpTarget, StdioTarget, meaningful
from test_faults import start_http_server, stop

MARK = uuid.uuid4().hex  # in every sentinel; unreserved characters, so no encoding hides it
SECRETS = {
    "ENV_SECRET": f"SENTINEL-{MARK}-env-é",  # a server dumping its env as JSON writes `\u00e9`
    "ARG_SECRET": f"SENTINEL-{MARK}-arg",
    "TOKEN": f"SENTINEL-{MARK}-token",
    "KEY": f"SENTINEL-{MARK}-key a+b",  # a query string: httpx sends the space as %20
    "PASS": f"SENTINEL-{MARK}-pass=word",  # userinfo: httpx writes '=' as %3D, sends it decoded (Basic)
}
BAD_PASS = f"SENTINEL-{MARK}-pa/ss"  # a '/' ends the userinfo early: httpx quotes the rest as a port
SERVERS = ("st", "web", "basic")


def assert_clean(text: str, where: str = "") -> None:
    """No sentinel, whole or in part: each holds MARK, which no encoding or escaping changes."""
    assert MARK not in text and "SENTINEL" not in text, f"{where}: a secret leaked:\n{text}"


@dataclass
class Project:
    root: Path
    port: int
    fault_file: Path
    package: ModuleType

    def http_fault(self, mode: str) -> None:
        self.fault_file.write_text(mode)

    def run(self, *args: str, **env: str) -> Run:
        """The CLI with the secrets in its environment; nothing it prints may hold one."""
        run = mcpvend(*args, cwd=self.root, env={**SECRETS, **env})
        assert_clean(run.out + run.err, " ".join(args))
        return run

    def run_all(self, commands: list[tuple[str, ...]], **env: str) -> list[tuple[tuple[str, ...], Run]]:
        """Several CLI runs, one after another in this process (`-v` in a child: the SDK's log is the
        process's). A child process per run would pay Python's and the SDK's imports each time."""
        return [(args, self.run(*args, **env)) for args in commands]

    def files(self) -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in sorted(self.root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The three servers locked (healthy) and generated into `secretpkg`; faults are switched per test."""
    root = tmp_path_factory.mktemp("secrets")
    tools = write_tools(root / "tools.json", GOOD_TOOLS)
    fault_file = root / "http-fault"
    port = free_port()
    web = start_http_server(port, "--fault-file", str(fault_file))
    try:
        st = replay(
            tools,
            "--note",
            "${ARG_SECRET}",
            env={"API_KEY": "${ENV_SECRET}", "PAD": "${PAD:-}", "REPLAY_FAULT": "${REPLAY_FAULT:-}"},
        )
        url = f"http://127.0.0.1:{port}/mcp"
        write_config(
            root,
            {
                "st": st,
                "web": {"url": url + "?key=${KEY}", "headers": {"Authorization": "Bearer ${TOKEN}"}},
                "basic": {"url": url.replace("//", "//user:${PASS}@")},
            },
        )
        for args in (("lock",), ("--output", "secretpkg", "generate")):
            run = mcpvend(*args, cwd=root, env=SECRETS)
            assert run.code == 0, run.err
            assert_clean(run.out + run.err, " ".join(args))
        sys.path.insert(0, str(root))
        try:
            yield Project(root, port, fault_file, importlib.import_module("secretpkg"))
        finally:
            sys.path.remove(str(root))
    finally:
        stop(web)


@pytest.fixture(autouse=True)
def healthy_http(project: Project) -> Iterator[None]:
    project.http_fault("ok")
    yield
    project.http_fault("ok")


# --- the CLI ---------------------------------------------------------------------------------------


def test_cli_success_paths_print_and_write_no_secret(project: Project, capfd: pytest.CaptureFixture[str]) -> None:
    commands = [
        ("lock",),
        ("lock", "--check"),
        *[
            ("diff", "--live", server, "--format", fmt)
            for server in SERVERS
            for fmt in ("text", "json", "markdown", "sarif")
        ],
        ("--output", "secretpkg", "generate", "--check"),
        ("show",),
        ("show", "--format", "json"),
        *[("lint", "--format", fmt) for fmt in ("text", "json", "markdown", "sarif")],
    ]
    for args, run in project.run_all(commands):
        assert run.code == 0, (args, run.err)
    # Logs: the SDK and httpx log every request's URL; the control is that they did, redacted.
    verbose = project.run("-v", "lock", "--check")
    assert verbose.code == 0, verbose.err
    assert f"127.0.0.1:{project.port}/mcp?key=*** " in verbose.err, verbose.err
    assert f"http://user:***@127.0.0.1:{project.port}/mcp" in verbose.err, verbose.err
    # Lockfiles and the package keep the templates where the values would be.
    locks = project.root / "lockfiles"
    web = json.loads((locks / "web.lock.json").read_text())["source"]
    assert web == {
        "transport": "http",
        "url": f"http://127.0.0.1:{project.port}/mcp?key=${{KEY}}",
        "headers": ["Authorization"],
    }
    st = json.loads((locks / "st.lock.json").read_text())["source"]
    assert st["args"][-2:] == ["--note", "${ARG_SECRET}"] and st["env"] == ["API_KEY", "PAD", "REPLAY_FAULT"]
    assert "user:${PASS}@" in (project.root / "secretpkg" / "basic" / "manifest.json").read_text()
    for path, data in project.files().items():
        assert MARK.encode() not in data, path
    direct = capfd.readouterr()  # what a server or the CLI wrote past click's runner, to this process's stdio
    assert_clean(direct.out + direct.err, "the descriptors of the in-process runs")


@dataclass(frozen=True)
class CliCase:
    server: str
    cause: str  # in the error line
    shows: tuple[str, ...] = ()  # where the secret was, redacted: in the error (stderr tail or server message)
    logs: str = ""  # the same in `-v` log lines
    env: tuple[tuple[str, str], ...] = ()
    http: str = "ok"


# `lock` shows the last 2000 characters of a failed server's stderr: padding after the secret
# in print-env's JSON puts that cut 30 characters before the secret's end.
TAIL = 2000
AFTER_SECRET = '", "PAD": "{}", "REPLAY_FAULT": "print-env"}}'
PAD = "p" * (TAIL - 30 - len(AFTER_SECRET.format("")))
SECRET_END = json.dumps(SECRETS["ENV_SECRET"])[1:-1][-30:]  # what a cut before redaction would show


def cli_cases(port: int) -> dict[str, CliCase]:
    closed = "the server closed the connection (it exited or crashed)"
    return {
        "stdio-prints-env": CliCase("st", closed, ('"API_KEY": "***"',), env=(("REPLAY_FAULT", "print-env"),)),
        "stdio-secret-across-the-stderr-cut": CliCase(
            "st", closed, ('"API_KEY": "***"',), env=(("REPLAY_FAULT", "print-env"), ("PAD", PAD))
        ),
        "stdio-prints-argv": CliCase("st", closed, ('"--note", "***"',), env=(("REPLAY_FAULT", "print-argv"),)),
        "http-quotes-query-and-bearer": CliCase(
            "web",
            "the server answered with error -32001",
            ("query 'key=***', authorization '***'",),
            http="reject-token",
        ),
        "http-quotes-userinfo": CliCase(
            "basic", "the server answered with error -32001", ("authorization 'Basic user:***'",), http="reject-token"
        ),
        "http-redirect-with-the-query": CliCase(
            "web",
            f"the server answered with error -32600: Redirect to http://localhost:{port}/mcp not followed",
            logs=f"(b'Location', b'http://localhost:{port}/mcp?key=***')",
            http="redirect",
        ),
        "url-invalid-inside-a-secret": CliCase(
            "basic", "the url is not a valid URL with its ${VAR}s expanded", env=(("PASS", BAD_PASS),)
        ),
    }


CLI_CASES = cli_cases(0)


@pytest.mark.parametrize("name", list(CLI_CASES))
def test_cli_failure_paths_print_no_secret(project: Project, name: str, capfd: pytest.CaptureFixture[str]) -> None:
    case = cli_cases(project.port)[name]
    project.http_fault(case.http)
    before = project.files()
    commands = [("lock", case.server), ("-v", "lock", "--check", case.server), ("diff", "--live", case.server)]
    for args, run in project.run_all(commands, **dict(case.env)):
        assert run.code == 2, (args, run.err)
        assert f"error: server '{case.server}': {case.cause}" in run.err, run.err
        for shown in case.shows:
            assert shown in run.err, run.err
        assert SECRET_END not in run.err, run.err
        if args[0] == "-v" and case.logs:
            assert case.logs in run.err, run.err
        assert run.out == ""
    assert project.files() == before  # no lockfile touched, nothing written
    direct = capfd.readouterr()  # what a server or the CLI wrote past click's runner, to this process's stdio
    assert_clean(direct.out + direct.err, "the descriptors of the in-process runs")


# --- the runtime -----------------------------------------------------------------------------------


@pytest.fixture
def url_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `${VAR}`s of the locked url and args come from the process environment at run time."""
    for name in ("ARG_SECRET", "KEY", "PASS"):
        monkeypatch.setenv(name, SECRETS[name])


def toolset(project: Project, replay_fault: str = "") -> Any:
    """Env and header values are given by name, as an application does (lockfiles hold names only)."""
    return project.package.toolset(
        list(SERVERS),
        connection=project.package.ConnectionOptions(
            env={"st": {"API_KEY": SECRETS["ENV_SECRET"], "PAD": "", "REPLAY_FAULT": replay_fault}},
            headers={"web": {"Authorization": f"Bearer {SECRETS['TOKEN']}"}},
            timeout=10,
        ),
    )


ARGUMENTS = {
    "st": ("st__search", {"q": "x"}),
    "web": ("web__echo", {"text": "x"}),
    "basic": ("basic__echo", {"text": "x"}),
}


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every captured record as a handler would write it, traceback included."""
    formatter = logging.Formatter("%(name)s: %(message)s")
    return "\n".join(formatter.format(record) for record in caplog.records)


pytestmark_anyio = pytest.mark.anyio


@pytestmark_anyio
@pytest.mark.usefixtures("url_secrets")
async def test_runtime_calls_that_succeed_log_no_secret(
    project: Project, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    async with toolset(project) as ts:
        for server, (tool, arguments) in ARGUMENTS.items():
            result = await ts.call(tool, arguments)
            assert not result.is_error and '"x"' in result.text, (server, result.text)
            assert_clean(result.text, server)
    logs = logged(caplog)
    assert_clean(logs, "log records")
    assert f"POST http://127.0.0.1:{project.port}/mcp?key=*** " in logs, logs  # the URL was logged, redacted
    assert f"POST http://user:***@127.0.0.1:{project.port}/mcp " in logs, logs
    captured = capfd.readouterr()
    assert_clean(captured.out + captured.err, "stdout/stderr")


@dataclass(frozen=True)
class RuntimeCase:
    server: str
    starts: str  # the error text the model sees starts so
    shows: tuple[str, ...] = ()  # ... and holds these (where the secret was)
    stderr: str = ""  # the server's own stderr, copied to ours, holds this
    logs: str = ""  # a log record holds this
    replay_fault: str = ""
    http: str = "ok"
    pass_value: str = ""


def runtime_cases(port: int) -> dict[str, RuntimeCase]:
    gone = "server 'st' could not be started: the server closed the connection (it exited or crashed)"
    creds = "query 'key=***', authorization '***'"
    return {
        "stdio-prints-env": RuntimeCase("st", gone, stderr='"API_KEY": "***"', replay_fault="print-env"),
        "stdio-prints-argv": RuntimeCase("st", gone, stderr='"--note", "***"', replay_fault="print-argv"),
        "stdio-error-quotes-env-and-argv": RuntimeCase(
            "st",
            "the call failed: the server answered with error -32050: denied: env {",
            ('"API_KEY": "***"', '"--note", "***"'),
            replay_fault="error-on-call",
        ),
        "http-start-quotes-query-and-bearer": RuntimeCase(
            "web",
            "server 'web' could not be started: the server answered with error -32001",
            (creds,),
            http="reject-token",
        ),
        "http-start-quotes-userinfo": RuntimeCase(
            "basic",
            "server 'basic' could not be started: the server answered with error -32001",
            ("authorization 'Basic user:***'",),
            http="reject-token",
        ),
        "http-call-error-quotes-credentials": RuntimeCase(
            "web", "the call failed: the server answered with error -32050", (creds,), http="error-on-call"
        ),
        "http-redirect-with-the-query": RuntimeCase(
            "web",
            f"server 'web' could not be started: the server answered with error -32600: Redirect to http://localhost:{port}/mcp not followed",
            logs=f"(b'Location', b'http://localhost:{port}/mcp?key=***')",
            http="redirect",
        ),
        "url-invalid-inside-a-secret": RuntimeCase(
            "basic", "server 'basic' could not be started: the url is not a valid URL", pass_value=BAD_PASS
        ),
    }


RUNTIME_CASES = runtime_cases(0)


@pytestmark_anyio
@pytest.mark.usefixtures("url_secrets")
@pytest.mark.parametrize("name", list(RUNTIME_CASES))
async def test_runtime_failures_show_the_model_and_the_logs_no_secret(
    project: Project,
    name: str,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case = runtime_cases(project.port)[name]
    caplog.set_level(logging.DEBUG)
    if case.pass_value:
        monkeypatch.setenv("PASS", case.pass_value)
    project.http_fault(case.http)
    tool, arguments = ARGUMENTS[case.server]
    async with toolset(project, case.replay_fault) as ts:
        result = await ts.call(tool, arguments)
    assert result.is_error and result.text.startswith(case.starts), result.text
    assert "\n" not in result.text
    assert_clean(result.text, "the model's error")
    for shown in case.shows:
        assert shown in result.text, result.text
    logs = logged(caplog)
    assert_clean(logs, "log records")
    assert case.logs in logs, logs
    captured = capfd.readouterr()
    assert_clean(captured.out + captured.err, "stdout/stderr")
    assert case.stderr in captured.err, captured.err


@pytestmark_anyio
@pytest.mark.usefixtures("url_secrets")
@pytest.mark.parametrize(
    ("server", "fault"), [("st", "leak-in-result"), ("st", "leak-in-error-result"), ("web", "leak-in-result")]
)
async def test_runtime_results_are_the_servers_data(project: Project, server: str, fault: str) -> None:
    """A tool result is what the server chose to return, passed on unchanged, even one that quotes a credential.

    The runtime cannot tell a secret from a value a tool returns on purpose: env values include
    paths, time zones and modes (a filesystem server lists files under the directory it was
    given), so redacting them would corrupt results; and the server holds the secret anyway.
    Redaction covers what our code writes: errors, logs, lockfiles, generated code. This is also
    the control for the tests above: the servers really received every secret.
    """
    project.http_fault(fault if server == "web" else "ok")
    tool, arguments = ARGUMENTS[server]
    async with toolset(project, fault if server == "st" else "") as ts:
        result = await ts.call(tool, arguments)
    assert result.is_error == (fault == "leak-in-error-result"), result.text
    if server == "st":
        assert json.dumps(SECRETS["ENV_SECRET"]) in result.text and json.dumps(SECRETS["ARG_SECRET"]) in result.text
    else:
        assert f"authorization 'Bearer {SECRETS['TOKEN']}'" in result.text and "key=SENTINEL-" in result.text


CREDENTIALS = "query 'key=***', authorization '***'"
TYPED_CASES = {  # name: (what is raised, the case: its text starts so and holds `shows`)
    "start-quotes-query-and-bearer": (
        "ConnectError",
        RuntimeCase(
            "web",
            "server 'web' could not be started: the server answered with error -32001",
            (CREDENTIALS,),
            http="reject-token",
        ),
    ),
    "start-quotes-userinfo": (
        "ConnectError",
        RuntimeCase(
            "basic",
            "server 'basic' could not be started: the server answered with error -32001",
            ("authorization 'Basic user:***'",),
            http="reject-token",
        ),
    ),
    "call-error-quotes-credentials": (
        "MCPError",
        RuntimeCase("web", "invalid credentials: ", (CREDENTIALS,), http="error-on-call"),
    ),
    "stdio-error-quotes-env-and-argv": (
        "MCPError",
        RuntimeCase("st", "denied: env {", ('"API_KEY": "***"', '"--note", "***"'), replay_fault="error-on-call"),
    ),
}


@pytestmark_anyio
@pytest.mark.usefixtures("url_secrets")
@pytest.mark.parametrize("name", list(TYPED_CASES))
async def test_typed_wrappers_raise_errors_that_hold_no_secret(project: Project, name: str) -> None:
    """`connect()` and the typed wrappers raise, rather than return errors: what they raise is redacted too."""
    raised_type, case = TYPED_CASES[name]
    project.http_fault(case.http)
    module = importlib.import_module(f"{project.package.__name__}.{case.server}")
    options: dict[str, Any] = {
        "st": {"env": {"API_KEY": SECRETS["ENV_SECRET"], "PAD": "", "REPLAY_FAULT": case.replay_fault}},
        "web": {"headers": {"Authorization": f"Bearer {SECRETS['TOKEN']}"}},
        "basic": {},
    }[case.server]
    tool, arguments = ARGUMENTS[case.server]
    with pytest.raises(Exception) as raised:
        async with module.connect(timeout=10, **options) as tools:
            await getattr(tools, tool.partition("__")[2])(**arguments)
    text = "".join(traceback.format_exception(raised.value))
    assert_clean(text, "the exception and its traceback")
    assert type(raised.value).__name__ == raised_type and str(raised.value).startswith(case.starts), text
    for shown in case.shows:
        assert shown in str(raised.value), text


def test_a_server_error_keeps_its_data_only_when_it_holds_no_secret() -> None:
    from mcp import MCPError

    from mcpvend.runtime.client.failures import redacted_error

    secrets = frozenset({SECRETS["TOKEN"]})
    assert redacted_error(MCPError(-32050, "denied", {"retry": 3}), secrets) is None
    quoted = redacted_error(MCPError(-32050, f"denied {SECRETS['TOKEN']}", {"retry": 3}), secrets)
    assert quoted is not None and (quoted.code, quoted.message, quoted.data) == (-32050, "denied ***", {"retry": 3})
    in_data = redacted_error(MCPError(-32050, "denied", {"token": SECRETS["TOKEN"]}), secrets)
    assert in_data is not None and (in_data.message, in_data.data) == ("denied", None)


# --- mcpvend serve ---------------------------------------------------------------------------------


@pytestmark_anyio
async def test_serve_passes_the_configured_secrets_and_shows_the_client_none(project: Project) -> None:
    """`serve` reaches upstreams with the config's env, header and url values; its errors and stderr hold none."""
    environ = {**os.environ, **SECRETS, "REPLAY_FAULT": "print-env"}
    args = ["-m", "mcpvend", "--output", "secretpkg", "serve", *SERVERS, "--mode", "direct"]
    params = StdioServerParameters(command=PY, args=args, cwd=str(project.root), env=environ)
    stderr = project.root / "serve-stderr.log"
    with stderr.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            healthy = await client.call_tool("web__echo", {"text": "x"})
            project.http_fault("reject-token")
            texts = {s: (await client.call_tool(*ARGUMENTS[s])).content[0] for s in ("st", "basic")}
            project.http_fault("error-on-call")
            texts["web"] = (await client.call_tool(*ARGUMENTS["web"])).content[0]
    assert not healthy.is_error, healthy.content  # the header came from the config: the server took it
    shown = {server: getattr(block, "text", "") for server, block in texts.items()}
    for server, text in shown.items():
        assert_clean(text, f"serve: {server}")
    assert shown["st"].startswith("server 'st' could not be started: the server closed the connection"), shown
    assert "authorization 'Basic user:***'" in shown["basic"], shown
    assert "query 'key=***', authorization '***'" in shown["web"], shown
    log = stderr.read_text()
    assert_clean(log, "serve's stderr")
    assert '"API_KEY": "***"' in log, log  # the upstream dumped its env through serve's stderr, redacted


# --- the redaction itself ----------------------------------------------------------------------------


def test_redaction_catches_every_form_a_value_takes_on_the_way() -> None:
    import urllib.parse

    secret = 'SENTINEL-é a+b=c"d'
    secrets = meaningful([secret])
    forms = [
        secret,
        json.dumps(secret),  # \u00e9 and \"
        json.dumps(secret, ensure_ascii=False),
        repr(secret.encode()),  # \xc3\xa9
        urllib.parse.quote(secret),
        urllib.parse.quote_plus(secret),
        urllib.parse.quote(secret).replace("%C3%A9", "%c3%a9"),
    ]
    for form in forms:
        assert redact(f"<{form}>", secrets) in ("<***>", '<"***">', "<b'***'>"), form
    assert redact("SENTINEL-e a", secrets) == "SENTINEL-e a"  # another value is left alone
    assert redact("x %41BCD-1 ABCD-1 x", meaningful(["%41BCD-1"])) == "x *** *** x"  # and its decoded form


def test_targets_show_no_secret_in_their_repr() -> None:
    value = f"SENTINEL-{MARK}"
    stdio = StdioTarget(command="python", args=("--token", value), env={"API_KEY": value}, secrets=frozenset([value]))
    http = HttpTarget(url=f"http://u:{value}@h/mcp?key={value}", headers={"Authorization": f"Bearer {value}"})
    assert "API_KEY" in repr(stdio) and "Authorization" in repr(http)
    assert_clean(repr(stdio), "StdioTarget")
    assert_clean(repr(HttpTarget(http.url, http.headers, frozenset([value]))), "HttpTarget")
    same = StdioTarget(command="python", args=("--token", value), env={"API_KEY": value})
    assert stdio == same  # the secrets are not compared


def test_no_file_under_the_project_holds_a_secret(project: Project) -> None:
    """After every test above: lockfiles, the package, serve's stderr log, anything written."""
    files = project.files()
    assert {"lockfiles/st.lock.json", "secretpkg/web/manifest.json"} <= {
        p.relative_to(project.root).as_posix() for p in files
    }
    for path, data in files.items():
        assert MARK.encode() not in data, path

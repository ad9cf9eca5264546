"""The one rule for which configured values are secret (`mcpvend.credentials`), on real-world shapes.

What it says decides what `lock` refuses or leaves out, what `init` turns into a `${VAR}`, what reports
mask and what the runtime redacts, so each case here is one a real server's README writes: a value after
`--api-key`, a `--token-file PATH`, an `--auth-type oauth`, `mcp-remote URL --header "Authorization: ..."`,
a token in a URL's query. Short flags (`-k`, `-p`) are left alone: too many mean something else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_config
from mcpvend.config import load_config
from mcpvend.credentials import (
    credential_name,
    masked_source,
    scrub_args,
    scrub_url,
    secret_args,
    url_secrets,
)
from mcpvend.runtime.client.targets import StdioTarget

SECRET = "hunter2-0d5e"


@pytest.mark.parametrize(
    ("name", "credential"),
    [
        ("API_KEY", True),
        ("OPENAI_API_KEY", True),
        ("GITHUB_PERSONAL_ACCESS_TOKEN", True),
        ("PGPASSWORD", True),
        ("SMTP_PASS", True),
        ("GITHUB_PAT", True),
        ("client_secret", True),
        ("accessToken", True),
        ("apiKey", True),
        ("x-goog-api-key", True),
        ("headers.Authorization", True),
        ("${SLACK_BOT_TOKEN}", True),
        ("--api-key", True),
        ("sig", True),  # an Azure SAS signature in a query
        ("TZ", False),
        ("--local-timezone", False),
        ("--max-tokens", False),  # a count of model tokens
        ("--tokenizer", False),
        ("--author", False),
        ("MONKEY", False),
        ("--keyword", False),
        ("--token-file", False),  # where the credential is
        ("GITHUB_TOKEN_FILE", False),
        ("--auth-type", False),  # what kind
        ("SESSION_TIMEOUT", False),
        ("--client-id", False),
    ],
)
def test_which_names_name_a_credential(name: str, credential: bool) -> None:
    assert credential_name(name) is credential


@pytest.mark.parametrize(
    ("args", "secret"),
    [
        (["--api-key", SECRET], [1]),
        (["--api-key", "${API_KEY}"], []),
        (["--token", SECRET, "--verbose"], [1]),
        (["--token=" + SECRET], [0]),
        (["--token=${TOKEN}"], []),
        (["--api-key=sk-${SUFFIX}"], [0]),  # the literal part is shaped like a credential
        (["--password", "--verbose"], []),  # a flag, not its value
        (["--token-file", "/run/secrets/token"], []),
        (["--auth-type", "oauth"], []),
        (["--auth", "none"], []),  # a mode, not a credential
        (["--max-tokens", "4096"], []),
        (["--author", "Jane Doe"], []),
        (["-m", "mcp_server_time", "--local-timezone", "UTC"], []),
        (["-y", "@modelcontextprotocol/server-filesystem", "/data/projects/2024"], []),
        (["--workspace", "5f8d0d55b54764421b7156c3"], []),  # an id: long opaque values are judged in env only
        (["--note", "ghp_0123456789abcdefABCDEF0123456789abcd"], [1]),  # a GitHub token by its shape
        (["-p", SECRET], []),  # short flags are left alone
        (["mcp-remote", "https://mcp.example.com/sse", "--header", "Authorization: Bearer " + SECRET], [3]),
        (["mcp-remote", "https://mcp.example.com/sse", "--header", "Authorization:${AUTH_HEADER}"], []),
        (["mcp-remote", "https://mcp.example.com/sse", "--header", "Authorization: Bearer ${TOKEN}"], []),
        (["mcp-remote", f"https://mcp.example.com/sse?api_key={SECRET}&region=eu"], [1]),
        (["mcp-remote", f"https://user:{SECRET}@mcp.example.com/sse"], [1]),
        (["mcp-remote", "https://mcp.example.com/sse?region=eu"], []),
    ],
)
def test_which_arguments_hold_a_literal_credential(args: list[str], secret: list[int]) -> None:
    assert secret_args(args) == secret


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        (f"https://user:{SECRET}@h.example/mcp", ["the user info"]),
        (f"https://{SECRET}@h.example/mcp", ["the user info"]),
        ("https://user:${PASS}@h.example/mcp", []),
        ("https://${USERINFO}@h.example/mcp", []),
        (f"https://h.example/mcp?access_token={SECRET}&region=eu", ["query parameter 'access_token'"]),
        (f"https://h.example/mcp?apiKey={SECRET}", ["query parameter 'apiKey'"]),
        ("https://h.example/mcp?key=${KEY}&region=eu", []),
        ("https://h.example/mcp?region=eu&page_size=10&workspace=5f8d0d55b54764421b7156c3", []),
        ("https://h.example/s/sk-live-abc123/mcp", ["a path segment"]),
        ("${MCP_URL}", []),
    ],
)
def test_which_parts_of_a_url_hold_a_literal_credential(url: str, parts: list[str]) -> None:
    assert url_secrets(url) == parts


def test_scrubbing_writes_each_credential_as_a_variable_and_keeps_every_other_byte() -> None:
    args = ["-m", "srv", "--api-key", SECRET, f"--token={SECRET}", "--local-timezone", "UTC", "--header", "X: y"]
    written, found = scrub_args("my-srv", args)
    assert written == [*args[:3], "${MY_SRV_API_KEY}", "--token=${MY_SRV_TOKEN}", *args[5:]]
    assert [(c.place, c.variable) for c in found] == [
        ("args[3] (after --api-key)", "MY_SRV_API_KEY"),
        ("args[4] (--token=...)", "MY_SRV_TOKEN"),
    ]
    url = f"https://u:{SECRET}@h.example/mcp?region=eu%20west&access_token={SECRET}#top"
    written_url, parts = scrub_url("1web", url)
    assert (
        written_url
        == "https://${_1WEB_URL_USERINFO}@h.example/mcp?region=eu%20west&access_token=${_1WEB_ACCESS_TOKEN}#top"
    )
    assert [c.message("1web") for c in parts] == [
        "server '1web': url: the user info holds a literal credential;"
        ' write it as "${_1WEB_URL_USERINFO}" and set _1WEB_URL_USERINFO in the environment',
        "server '1web': url: query parameter 'access_token' holds a literal credential;"
        ' write it as "access_token=${_1WEB_ACCESS_TOKEN}" and set _1WEB_ACCESS_TOKEN in the environment',
    ]
    assert scrub_url("web", "https://h.example/mcp?region=eu") == ("https://h.example/mcp?region=eu", [])


def test_a_report_shows_a_source_with_every_literal_credential_masked() -> None:
    source = {
        "args": ["--api-key", SECRET, "--header", f"Authorization: Bearer {SECRET}", "--local-timezone", "UTC"],
        "url": f"https://u:{SECRET}@h.example/mcp?access_token={SECRET}&region=eu",
        "envValues": {"TZ": "UTC", "DATABASE_URL": f"postgres://app:{SECRET}@db/app"},
    }
    shown = masked_source(source)
    assert shown == {
        "args": ["--api-key", "***", "--header", "Authorization: ***", "--local-timezone", "UTC"],
        "url": "https://***@h.example/mcp?access_token=***&region=eu",
        "envValues": {"TZ": "UTC", "DATABASE_URL": "***"},
    }


def test_target_counts_literal_credentials_of_args_and_url_among_its_secrets(tmp_path: Path) -> None:
    """What `serve`, the log filter and the served-back check mask at run time."""
    write_config(
        tmp_path,
        {
            "st": {"command": "node", "args": ["s.js", "--api-key", SECRET, "--local-timezone", "Europe/Paris"]},
            "web": {"url": f"https://user:{SECRET}-pw@h.example/mcp?access_token={SECRET}-q&region=europe"},
        },
    )
    config = load_config(tmp_path / "mcpvend.toml")
    target, secrets = config.servers["st"].target(tmp_path, {})
    assert secrets == {SECRET: "args[2]"}
    assert isinstance(target, StdioTarget) and SECRET in target.secret_values()
    _, secrets = config.servers["web"].target(tmp_path, {})
    assert secrets == {f"user:{SECRET}-pw": "url", f"{SECRET}-pw": "url", f"{SECRET}-q": "url"}

"""The runtime's MCP client against the official conformance suite's client scenarios.

`tests/conformance/package.json` pins `@modelcontextprotocol/conformance` and the Node 22 it
needs (the `node` npm package; the machine's own Node may be older), so the suite runs with
`tests/conformance/node_modules/.bin` first on PATH. It starts a mock streamable-HTTP server,
runs `tests/conformance/client.py` with the server's URL as the last argument, and writes what
it checked to `checks.json`.

The suite's exit code alone proves little: a scenario whose server never sees the request it
checks records no check at all and still reports "0/0, PASSED". So every test reads checks.json
and requires the scenario's own check to be there and to have succeeded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CONFORMANCE = Path(__file__).resolve().parent / "conformance"
NODE_BIN = CONFORMANCE / "node_modules" / ".bin"
CLIENT = CONFORMANCE / "client.py"
TIMEOUT = 120  # seconds per scenario; each takes about 2 s

# The check each scenario must record as SUCCESS; it is what the scenario is about.
REQUIRED = {"initialize": "mcp-client-initialization", "tools_call": "tool-add-numbers"}
PASSING = {"SUCCESS", "INFO"}  # INFO entries log the traffic; anything else (FAILURE, WARNING, SKIPPED) fails


@dataclass(frozen=True)
class Run:
    returncode: int
    output: str  # the suite's stdout and stderr: its summary, and the client's output on failure
    checks: list[dict[str, Any]]
    seconds: float


def conformance_bin() -> Path:
    """The pinned suite's entry point; in CI its absence fails, elsewhere it skips."""
    entry = NODE_BIN / "conformance"
    if not entry.exists() or not (NODE_BIN / "node").exists():
        message = f"{entry} is missing: run `make test` (npm ci in tests/conformance)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return entry


def run_scenario(scenario: str, out: Path, *client_args: str) -> Run:
    """`conformance client` for one scenario, with client.py under this Python as the client."""
    command = [sys.executable, str(CLIENT), *client_args]
    spaced = [part for part in command if any(c.isspace() for c in part)]
    if spaced:  # the suite splits --command on spaces, so such a path would arrive in pieces
        pytest.fail(f"the conformance suite cannot run a client command with spaces in {spaced}")
    env = {**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    started = time.monotonic()
    proc = subprocess.run(
        [str(conformance_bin()), "client", "--command", " ".join(command), "--scenario", scenario, "-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    seconds = time.monotonic() - started
    output = proc.stdout + proc.stderr
    found = sorted(out.glob(f"{scenario}-*/checks.json"))
    assert len(found) == 1, f"expected one checks.json under {out}, found {found}\n{output}"
    checks = json.loads(found[0].read_text(encoding="utf-8"))
    assert isinstance(checks, list), f"checks.json is not a list: {checks!r}"
    return Run(proc.returncode, output, checks, seconds)


def failures(run: Run, scenario: str) -> list[str]:
    """Why the run did not pass the scenario; empty when it did."""
    problems = [
        f"{check.get('id')}: {check.get('status')} {check.get('errorMessage') or check.get('details')}"
        for check in run.checks
        if check.get("status") not in PASSING
    ]
    required = [check for check in run.checks if check.get("id") == REQUIRED[scenario]]
    if not any(check.get("status") == "SUCCESS" for check in required):
        problems.append(f"{REQUIRED[scenario]}: not recorded as SUCCESS (recorded: {required or 'nothing'})")
    if run.returncode != 0:
        problems.append(f"the suite exited with {run.returncode}")
    return problems


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
@pytest.mark.parametrize("scenario", sorted(REQUIRED))
def test_runtime_client_passes_scenario(scenario: str, protocol: str, tmp_path: Path) -> None:
    run = run_scenario(scenario, tmp_path, "--protocol", protocol)
    assert failures(run, scenario) == [], run.output
    (required,) = [check for check in run.checks if check["id"] == REQUIRED[scenario]]
    if scenario == "initialize":
        assert required["details"]["clientName"] == "mcpvend"
        assert required["details"]["protocolVersionSent"] in ("2025-06-18", "2025-11-25")
    else:
        assert required["details"] == {"a": 2, "b": 3, "result": 5}
    assert run.seconds < TIMEOUT


def test_tools_call_fails_when_the_client_calls_nothing(tmp_path: Path) -> None:
    run = run_scenario("tools_call", tmp_path, "--skip-call")
    (required,) = [check for check in run.checks if check["id"] == "tool-add-numbers"]
    assert required["status"] == "FAILURE"
    assert required["details"] == {"message": "Tool was not called by client"}
    assert run.returncode != 0, run.output
    assert failures(run, "tools_call") != []


def test_a_silent_pass_is_not_a_pass(tmp_path: Path) -> None:
    """A client that never initializes leaves `initialize` with no check: the suite says passed, we must not."""
    run = run_scenario("initialize", tmp_path, "--no-connect")
    assert run.returncode == 0, run.output  # the suite's own verdict: "Passed: 0/0 ... PASSED"
    assert run.checks == []
    assert failures(run, "initialize") == ["mcp-client-initialization: not recorded as SUCCESS (recorded: nothing)"]

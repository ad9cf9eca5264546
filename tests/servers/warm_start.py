"""A fast start for the Python processes the suite starts: the process started hands its work to a warm copy.

Each of them imports the `mcp` SDK first, about a second of CPU, and the suite starts them hundreds of
times: the servers of this directory, `python -m mcp_server_time`, and mcpvend's own CLI as a child process
(`python -m mcpvend`, the venv's `mcpvend` script). A warm starter (two per pytest worker, one per UTF-8
mode, started by `tests/conftest.py`) has imported the SDK once (not mcpvend: each copy imports that afresh); for each start
it forks a copy of itself that takes over the started process's stdin, stdout and stderr (the descriptors
themselves, so nothing is relayed), its arguments, environment, working directory, umask and `sys.path`,
and runs the script or module as `python` would. The started process stays what the client sees: it
waits for the copy, passes on the signals it gets, and exits as the copy did; killed, it takes the copy
with it (the starter kills a copy whose process is gone).

That last kill comes a moment after the started process's own: a test that SIGKILLs a process and then
reads what it left must have it start cold, with `COLD_START` (below) in its environment.

The hand-over happens as the interpreter starts, from a `.pth` file `make` puts in the checkout's venv
(`python tests/servers/warm_start.py --install`), before the server's first import. Where no starter
serves the process's tree (a server run by hand or by another program, or from another venv), or the
starter's interpreter, flags or `sys.path` are not the process's own, it returns and the server starts as
usual. The raw JSON-RPC servers (replay.py, drifting.py) import no SDK and start as they are.

    python tests/servers/warm_start.py --serve PID      (a starter for PID's tree; it stops when its stdin closes)
    python tests/servers/warm_start.py --install        (writes the .pth file into this interpreter's venv)
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

DIRECTORY = Path(f"/tmp/mcpvend-warm-start-{os.getuid()}")  # holds the sockets of the serving processes
SERVERS = Path(__file__).resolve().parent
COLD = {"warm_start.py", "replay.py", "drifting.py"}  # this module, and the servers that import no SDK
MODULES = {"mcp_server_time", "mcpvend"}  # started as `python -m NAME`
SCRIPTS = {str(Path(sys.executable).parent.resolve() / "mcpvend")}  # the venv's console scripts (as made by --install)
COLD_START = "MCPVEND_TESTS_COLD_START"  # set in a process's environment: it starts as usual
PTH = "zz-mcpvend-tests-warm-start.pth"  # sorted last: the venv's other .pth files have set sys.path by then
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
PRELOADED = (  # what the suite's servers import: one import here instead of one per start
    "anyio",
    "pydantic",
    "mcp",
    "mcp_types",
    "mcp.server.mcpserver",
    "mcp.server.mcpserver.exceptions",
    "mcp.server.mcpserver.resolve",
    "mcp.server.elicitation",
    "mcp.server.lowlevel",
    "mcp.server.stdio",
    "mcp.types",
)


def _interpreter(path: list[str]) -> dict[str, Any]:
    """What must be the same in a started process and the starter for a copy to be that process."""
    return {
        "executable": sys.executable,
        "flags": list(sys.flags),
        "path": path,  # without [0], the script's directory (the interpreter adds it after site runs)
        "hash_seed": os.environ.get("PYTHONHASHSEED"),
        "io_encoding": os.environ.get("PYTHONIOENCODING"),
    }


def socket_path(pid: int) -> Path:
    """Where the starter for PID's tree listens that serves this interpreter's UTF-8 mode. The mode is set at
    start from the locale: the environment the SDK gives a server has none (UTF-8 mode on), a test's child
    inherits the one Python set for pytest (off); a worker has a starter for each."""
    return DIRECTORY / f"{pid}-utf8-{sys.flags.utf8_mode}.sock"


def _starter() -> Path | None:
    """The socket of the nearest ancestor process that serves warm starts, if any."""
    if not DIRECTORY.is_dir():
        return None
    pid = os.getppid()
    while pid > 1:
        candidate = socket_path(pid)
        if candidate.exists():
            return candidate
        try:
            stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        except OSError:
            return None
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state: the parent's pid
    return None


def _launch(argv: list[str]) -> dict[str, str] | None:
    """What this process was started to run, if it is one of the servers a copy may run."""
    if sys.orig_argv[1:2] == ["-m"] and sys.orig_argv[2:3] and sys.orig_argv[2] in MODULES:
        return {"module": sys.orig_argv[2]}
    script = Path(argv[0]).resolve() if argv and argv[0] not in ("", "-c", "-m") else None
    if script is not None and ((script.parent == SERVERS and script.name not in COLD) or str(script) in SCRIPTS):
        return {"script": argv[0]}
    return None


def hand_over(argv: list[str]) -> None:
    """Become a stand-in for a warm copy of this process, or return (see the module's docstring).

    `argv`: the process's `sys.argv` (runpy, which runs this module from the .pth file, sets its [0] meanwhile)."""
    launch = _launch(argv)
    if launch is None or os.environ.get(COLD_START):
        return
    path = _starter()
    if path is None:
        return
    request = {
        **_interpreter(list(sys.path)),
        **launch,
        "argv": argv,
        "orig_argv": sys.orig_argv,
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": os.umask(0o022),
    }
    os.umask(request["umask"])
    link = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        link.connect(str(path))
        socket.send_fds(link, [json.dumps(request).encode()], [0, 1, 2])
        reply = json.loads(link.recv(65536) or b'{"refused": "no answer"}')
    except (OSError, ValueError):
        link.close()
        return
    if "pid" not in reply:
        link.close()
        return
    copy = int(reply["pid"])
    # Let go of the pipes: the copy holds them now, and its exit must close them at once.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    for number in FORWARDED:
        signal.signal(number, lambda received, _frame: os.kill(copy, received))
    answer = link.recv(65536)
    if not answer:
        os._exit(1)  # the starter is gone, and its copies with it
    code = os.waitstatus_to_exitcode(int(json.loads(answer)["status"]))
    if code < 0:  # killed by a signal: die of the same one
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def _run_copy(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked copy: become the started process, run its script, exit as it would."""
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    for number in FORWARDED:
        signal.signal(number, signal.default_int_handler if number == signal.SIGINT else signal.SIG_DFL)
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = list(request["argv"])
    sys.orig_argv = list(request["orig_argv"])
    first = os.getcwd() if "module" in request else str(Path(request["script"]).resolve().parent)
    sys.path[:] = [first, *request["path"]]
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))  # the streams as the interpreter makes them for pipes
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=sys.stdin.encoding)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding=sys.stdout.encoding, write_through=unbuffered
    )
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding=sys.stderr.encoding,
        errors="backslashreplace",
        line_buffering=True,
        write_through=unbuffered,
    )
    code: int = 0
    try:
        if "module" in request:
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(request["script"], run_name="__main__")
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            code = exit_.code or 0
        else:
            print(exit_.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001  what the interpreter prints for an exception nothing caught
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)  # the starter's own interpreter is not torn down in each copy


class _Starter:
    """The starter's loop: a listening socket, one link per started process, one pidfd per copy."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.own = _interpreter(sys.path[1:])
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(str(path))
        self.listener.listen(64)
        self.events = selectors.DefaultSelector()
        self.events.register(self.listener, selectors.EVENT_READ, self._accept)
        self.copies: dict[socket.socket, tuple[int, int]] = {}  # link -> (pid, pidfd) of its copy

    def run(self) -> None:
        stop = False

        def stopping() -> None:
            nonlocal stop
            stop = True

        self.events.register(sys.stdin, selectors.EVENT_READ, stopping)
        print("ready", flush=True)
        try:
            while not stop:
                for key, _ in self.events.select():
                    key.data()
        finally:
            for pid, pidfd in self.copies.values():
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                os.waitpid(pid, 0)
            self.path.unlink(missing_ok=True)

    def _accept(self) -> None:
        link, _ = self.listener.accept()
        try:
            message, fds, _, _ = socket.recv_fds(link, 1 << 20, 3)
            request = json.loads(message)
        except (OSError, ValueError):
            link.close()
            return
        differs = [key for key, value in self.own.items() if request.get(key) != value]
        if differs or len(fds) != 3 or threading.active_count() != 1:
            link.send(json.dumps({"refused": differs}).encode())
            for fd in fds:
                os.close(fd)
            link.close()
            return
        pid = os.fork()
        if pid == 0:
            self.events.close()  # the starter's descriptors are not the copy's
            self.listener.close()
            for held in (link, *self.copies):
                held.close()
            for _, pidfd in self.copies.values():
                os.close(pidfd)
            _run_copy(request, fds)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        self.copies[link] = (pid, pidfd)
        self.events.register(pidfd, selectors.EVENT_READ, lambda: self._exited(link))
        self.events.register(link, selectors.EVENT_READ, lambda: self._gone(link))
        link.send(json.dumps({"pid": pid}).encode())

    def _exited(self, link: socket.socket) -> None:
        pid, pidfd = self.copies.pop(link)
        _, status = os.waitpid(pid, 0)
        self.events.unregister(pidfd)
        os.close(pidfd)
        self.events.unregister(link)
        with contextlib.suppress(OSError):  # the started process is gone already
            link.send(json.dumps({"status": status}).encode())
        link.close()

    def _gone(self, link: socket.socket) -> None:
        """The started process went away (killed) while its copy runs: the copy goes too."""
        if not link.recv(1):
            self.events.unregister(link)
            pidfd = self.copies[link][1]
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            self.events.modify(pidfd, selectors.EVENT_READ, lambda: self._reap(link))

    def _reap(self, link: socket.socket) -> None:
        pid, pidfd = self.copies.pop(link)
        os.waitpid(pid, 0)
        self.events.unregister(pidfd)
        os.close(pidfd)
        link.close()


def serve(pid: int) -> None:
    """Fork a copy for each process of PID's tree that hands over; stop (and kill the copies) when stdin
    closes. Where a starter of this UTF-8 mode serves PID already, say so and stop."""
    path = socket_path(pid)
    if path.exists():
        print("served", flush=True)
        return
    for name in PRELOADED:
        __import__(name)
    _Starter(path).run()


def install() -> Path:
    """The .pth file, in this interpreter's site-packages: one line that hands a server over as it starts."""
    import sysconfig

    # One line, run by every interpreter of the venv: it costs a path comparison where it hands nothing over.
    line = (
        "import os, sys; "
        f"(sys.orig_argv[1:2] == ['-m'] and sys.orig_argv[2:3] in {[[m] for m in sorted(MODULES)]!r} or "
        f"os.path.dirname(os.path.realpath(sys.argv[0])) == {str(SERVERS)!r} "
        f"and os.path.basename(sys.argv[0]) not in {sorted(COLD)!r} or os.path.realpath(sys.argv[0]) in {sorted(SCRIPTS)!r}) and "
        f"__import__('runpy').run_path({str(SERVERS / 'warm_start.py')!r}, {{'ARGV': sys.argv[:]}}, 'warm_start_hook')\n"
    )
    target = Path(sysconfig.get_paths()["purelib"]) / PTH
    target.write_text(line, encoding="utf-8")
    return target


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"] and len(sys.argv) == 3:
        serve(int(sys.argv[2]))
    elif sys.argv[1:] == ["--install"]:
        print(install())
    else:
        sys.exit(__doc__)
elif __name__ == "warm_start_hook":  # run by the .pth file as the interpreter starts, the process's argv given
    hand_over(globals()["ARGV"])

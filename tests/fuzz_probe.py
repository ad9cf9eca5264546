"""Imports generated packages in a watched process, one request per stdin line (tests/test_fuzz.py).

Importing a generated package may define things and nothing else: an audit hook records every
file opened for writing, process started, socket used and file system change while the package
imports. Requests are JSON lines `{"root": DIR, "package": NAME, "server": NAME}`; each answer
is one JSON line on the file descriptor given as the only argument, so anything the package prints lands in stdout/stderr,
which the test reads separately (they must stay empty).
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
from typing import Any

sys.dont_write_bytecode = True  # importing must not write, and __pycache__ files would count

# The runtime's own dependencies, imported before watching: their start-up is not the package's.
import jsonschema  # noqa: E402, F401
import mcp  # noqa: E402, F401
import mcp_types  # noqa: E402, F401
import pydantic  # noqa: E402, F401

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
WATCHED = (
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.kill", "os.killpg",
    "subprocess.Popen", "pty.spawn", "socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto",
    "socket.sendmsg", "os.remove", "os.unlink", "os.rename", "os.mkdir", "os.rmdir", "os.symlink", "os.link",
    "os.truncate", "os.chmod", "os.chown", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move",
    "urllib.Request", "webbrowser.open", "ctypes.dlopen", "os.putenv", "os.unsetenv", "os.chdir",
)  # fmt: skip
events: list[list[str]] = []
watching = False


def hook(event: str, args: tuple[Any, ...]) -> None:
    if not watching:
        return
    if event == "open":
        path, mode, flags = args
        writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & WRITE_FLAGS)
        if writes:
            events.append([event, repr(path)])
    elif event in WATCHED:
        events.append([event, repr(args)[:200]])


def check(root: str, package: str, server: str) -> dict[str, Any]:
    global watching
    events.clear()
    sys.path.insert(0, root)
    importlib.invalidate_caches()
    watching = True
    try:
        importlib.import_module(package)
        tools = importlib.import_module(f"{package}.{server}.tools")
        importlib.import_module(f"{package}.{server}.models")
    finally:
        watching = False
        sys.path.remove(root)
    docs = {name: value.__doc__ for name, value in vars(tools.Tools).items() if inspect.isfunction(value)}
    for name in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
        del sys.modules[name]  # thousands of examples: keep the process small
    return {"events": list(events), "docs": docs}


def main() -> None:
    sys.addaudithook(hook)
    with os.fdopen(int(sys.argv[1]), "w", encoding="utf-8") as answers:
        for line in sys.stdin:
            request = json.loads(line)
            try:
                answer = check(request["root"], request["package"], request["server"])
            except BaseException as exc:  # noqa: BLE001 - the test reports it with the example
                answer = {"error": f"{type(exc).__name__}: {exc}"}
            answers.write(json.dumps(answer) + "\n")
            answers.flush()


if __name__ == "__main__":
    main()

"""A raw LSP client for stress tests and benchmarks: ``python -m offload_ls.lsp`` as a
child process, JSON-RPC 2.0 over its stdin/stdout with hand-made Content-Length framing
(so tests can also send bytes no real client would), plus /proc readings of the server
process (resident memory, CPU seconds, child processes).

No pygls on the client side: the bytes on the wire are exactly what a test writes.
A reader thread collects every message from the server (time-stamped on arrival) and
answers the server's own requests (``workspace/configuration`` with the test's settings,
everything else with ``null``). The server's stderr goes to a file, never a pipe, so a
chatty server can never block on a full pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

SERVER_ARGV = [sys.executable, "-m", "offload_ls.lsp"]
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def frame(body: bytes) -> bytes:
    """``body`` with a correct ``Content-Length`` header (bytes, not characters)."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: dict) -> bytes:
    """A JSON-RPC message as a framed byte string (``jsonrpc`` is not added)."""
    return frame(json.dumps(message).encode("utf-8"))


class ServerExited(RuntimeError):
    """The server process ended while a test was waiting for a message."""


class RawLsp:
    """One server process and its message log.

    Args:
        settings: answer to every ``workspace/configuration`` item (the ``offload-ls``
            section), also sent as ``initializationOptions`` by :meth:`initialize`.
        stderr_path: where the server's stderr goes.
        env: the server's environment (default: this process's).
        cwd: the server's working directory.
        argv: the server's command (default: ``python -m offload_ls.lsp``).
    """

    def __init__(self, stderr_path: Path, settings: dict | None = None,
                 env: dict[str, str] | None = None, cwd: Path | None = None,
                 argv: list[str] | None = None) -> None:
        self.settings = settings or {}
        self.stderr_path = stderr_path
        self._stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv or SERVER_ARGV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, env=env, cwd=cwd)
        self.messages: list[tuple[float, dict]] = []
        self.raw_frames = 0
        self._cond = threading.Condition()
        self._closed = False
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._reader = threading.Thread(target=self._read, daemon=True, name="rawlsp-reader")
        self._reader.start()

    # ------------------------------------------------------------------ wire

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        stream = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                body = stream.read(length)
                msg = json.loads(body)
                if "method" in msg and "id" in msg:
                    self._answer(msg)
                with self._cond:
                    self.raw_frames += 1
                    self.messages.append((time.monotonic(), msg))
                    self._cond.notify_all()
        except (OSError, ValueError):
            pass
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def _answer(self, msg: dict) -> None:
        result = None
        if msg["method"] == "workspace/configuration":
            result = [self.settings for _ in (msg.get("params") or {}).get("items", [])]
        try:
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        except OSError:
            pass

    def write(self, data: bytes) -> None:
        """Write bytes to the server's stdin as they are."""
        with self._write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        self.write(encode(message))

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params=None, id_=None) -> int:
        """Send a request; returns its id (a fresh integer unless ``id_`` is given)."""
        rid = self.new_id() if id_ is None else id_
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def notify(self, method: str, params=None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    # ------------------------------------------------------------------ waiting

    def mark(self) -> int:
        """Index of the next message to arrive (for :meth:`wait_for`'s ``after``)."""
        with self._cond:
            return len(self.messages)

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 30.0, after: int = 0) -> dict:
        """The first message (from index ``after`` on) satisfying ``predicate``.

        Raises:
            TimeoutError: none within ``timeout`` seconds. ServerExited: the server's
            stdout closed first.
        """
        deadline = time.monotonic() + timeout
        i = after
        with self._cond:
            while True:
                while i < len(self.messages):
                    msg = self.messages[i][1]
                    i += 1
                    if predicate(msg):
                        return msg
                if self._closed:
                    raise ServerExited(f"the server exited (status {self.proc.poll()}); "
                                       f"stderr tail: {self.stderr_tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no matching message within {timeout} s; stderr tail: {self.stderr_tail()}")
                self._cond.wait(min(left, 0.5))

    def response(self, rid, timeout: float = 30.0, after: int = 0) -> dict:
        """The response (result or error) to request ``rid``."""
        return self.wait_for(lambda m: "method" not in m and m.get("id") == rid, timeout, after)

    def call(self, method: str, params=None, timeout: float = 30.0) -> dict:
        """Send a request and wait for its response."""
        at = self.mark()
        return self.response(self.request(method, params), timeout, at)

    def since(self, after: int) -> list[dict]:
        with self._cond:
            return [m for _, m in self.messages[after:]]

    def log_messages(self, after: int = 0) -> list[str]:
        """Texts of ``window/logMessage`` notifications."""
        return [m["params"]["message"] for m in self.since(after) if m.get("method") == "window/logMessage"]

    def publishes(self, uri: str | None = None, after: int = 0) -> list[dict]:
        """``publishDiagnostics`` params (all, or of one URI) in arrival order."""
        return [m["params"] for m in self.since(after)
                if m.get("method") == "textDocument/publishDiagnostics" and (uri is None or m["params"]["uri"] == uri)]

    def stderr_tail(self, n: int = 2000) -> str:
        try:
            return self.stderr_path.read_bytes()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    # ------------------------------------------------------------------ session

    def initialize(self, root: Path | None, capabilities: dict | None = None,
                   init_options: dict | None = None, timeout: float = 30.0) -> dict:
        """``initialize`` (``root`` as the one workspace folder) then ``initialized``."""
        caps = capabilities if capabilities is not None else {
            "general": {"positionEncodings": ["utf-16"]},
            "workspace": {"configuration": True, "workspaceFolders": True},
            "textDocument": {"publishDiagnostics": {"versionSupport": True},
                             "synchronization": {"didSave": True},
                             "hover": {"contentFormat": ["markdown", "plaintext"]}},
        }
        params = {"processId": os.getpid(), "capabilities": caps,
                  "initializationOptions": self.settings if init_options is None else init_options,
                  "rootUri": root.as_uri() if root else None,
                  "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}] if root else None}
        reply = self.call("initialize", params, timeout)
        self.notify("initialized", {})
        return reply

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "rust", "version": version, "text": text}})

    def close(self, timeout: float = 15.0) -> int | None:
        """``shutdown`` + ``exit``; kill the process if it does not end. Returns its exit
        status (``None`` if it had to be killed)."""
        status = None
        try:
            if self.proc.poll() is None:
                self.call("shutdown", None, timeout)
                self.notify("exit", None)
                status = self.proc.wait(timeout=timeout)
            else:
                status = self.proc.returncode
        except (TimeoutError, ServerExited, OSError, subprocess.TimeoutExpired):
            status = self.proc.poll()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=timeout)
            self._stderr.close()
        return status

    # ------------------------------------------------------------------ /proc

    def rss_bytes(self) -> int:
        """Resident set size of the server process (``VmRSS`` of /proc/<pid>/status), bytes."""
        return rss_bytes(self.pid)

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the server process has used (/proc/<pid>/stat)."""
        return cpu_seconds(self.pid)

    def descendants(self) -> list[tuple[int, str, str]]:
        """(pid, comm, cmdline) of every live process below the server (any depth,
        including ones that moved to their own process group or session)."""
        return descendants(self.pid)


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK  # utime, stime (fields 14, 15)


def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (ppid, comm, cmdline) for every process (zombies included)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        rest = stat[stat.rindex(")") + 2:].split()
        if rest[0] == "Z":
            continue  # a zombie holds no resources but its exit status
        out[int(entry)] = (int(rest[1]), comm, cmd.strip())
    return out


def descendants(pid: int) -> list[tuple[int, str, str]]:
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for p, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(p)
    out, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop()
        out.append((p, table[p][1], table[p][2]))
        todo += children.get(p, [])
    return out


def processes_matching(predicate: Callable[[str, str], bool]) -> list[tuple[int, str, str]]:
    """(pid, comm, cmdline) of every live process whose (comm, cmdline) satisfies
    ``predicate`` — for orphans that were re-parented away from the server."""
    return [(p, c, cmd) for p, (_, c, cmd) in _proc_table().items() if predicate(c, cmd)]

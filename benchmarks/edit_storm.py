"""Edit storm: figures for 1,000 rapid incremental edits (tests/stress/test_edit_storm.py
checks the results; this prints how long things take and what memory does).

Against ``python -m offload_ls.lsp`` over stdio (raw JSON-RPC, tests/stress/rawlsp.py),
on a copy of tests/toolchain/fixtures/device-error, with the storm of the stress test
(statements with non-ASCII comments added and removed, the device-only ``.sin()`` and a
raw-pointer kernel parameter switched on and off; a save every 50 edits):

- lints (``--no-compile``, the default without the toolchain): the storm sent as fast as
  the pipe takes it (``debounceMs`` 0, compile on save off);
- compiles (``--compile``): the storm paced at ``--pace`` seconds per edit in a trusted
  workspace, so offload checks run (and are cancelled by newer saves) during it.

Printed: seconds to send the storm; seconds from the last edit to the publish of its
version (lints) or from the final save to the final check's result (compiles); number of
publishes; checks begun / cancelled / completed (``$/progress``); resident memory
(``VmRSS``) before, peak (sampled every 50 ms) and after the storm settles; CPU seconds of
the server process.

    python3 benchmarks/edit_storm.py [--edits 1000] [--compile] [--pace 0.015]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "stress"))

from rawlsp import RawLsp, rss_bytes  # noqa: E402
from stress_helpers import copy_fixture  # noqa: E402
from test_edit_storm import Storm, settle  # noqa: E402


class Peak:
    """The highest RSS of ``pid`` sampled every 50 ms until :meth:`stop`."""

    def __init__(self, pid: int) -> None:
        self.pid, self.value = pid, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.value = max(self.value, rss_bytes(self.pid))
            except (OSError, RuntimeError):
                return
            time.sleep(0.05)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(1)
        return self.value


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=1000)
    ap.add_argument("--compile", action="store_true", help="trusted workspace, checks on save (needs the toolchain)")
    ap.add_argument("--pace", type=float, default=0.015, help="seconds between edits with --compile")
    args = ap.parse_args(argv)
    print(f"$ python3 benchmarks/edit_storm.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
    print(f"host: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="offload-ls-storm-") as tmp:
        crate = copy_fixture("device-error", Path(tmp) / "crate")
        main_rs = crate / "src" / "main.rs"
        uri = main_rs.as_uri()
        settings = {"debounceMs": 0 if not args.compile else 20, "scanWorkspace": False,
                    "checkOnSave": args.compile, "transferPlan": False,
                    "trustedWorkspaces": [str(crate)] if args.compile else []}
        caps = {"general": {"positionEncodings": ["utf-16"]}, "window": {"workDoneProgress": True},
                "workspace": {"configuration": True},
                "textDocument": {"publishDiagnostics": {"versionSupport": True}}}
        server = RawLsp(Path(tmp) / "server.stderr", settings)
        try:
            server.initialize(crate, capabilities=caps)
            storm = Storm(main_rs.read_text())
            server.open(uri, storm.text, 1)
            version = 1
            # Warm-up: 50 edits and a save (with --compile: one completed check).
            for _ in range(50):
                version += 1
                server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": storm.edit()})
            main_rs.write_text(storm.text)
            server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
            settle(server, quiet_s=2.0, timeout=600,
                   done=lambda: not args.compile or any(m.startswith("offload check of crate: ")
                                                        for m in server.log_messages()))
            rss0, cpu0, at = rss_bytes(server.pid), server.cpu_seconds(), server.mark()
            peak = Peak(server.pid)
            t0 = time.monotonic()
            for n in range(args.edits):
                version += 1
                server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": storm.edit()})
                if (n + 1) % 50 == 0:
                    main_rs.write_text(storm.text)
                    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
                if args.compile and args.pace:
                    time.sleep(args.pace)
            t_sent = time.monotonic()
            if args.compile:
                main_rs.write_text(storm.text)
                final_at = server.mark()
                server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
                server.wait_for(lambda m: m.get("method") == "window/logMessage"
                                and m["params"]["message"].startswith("offload check of crate: "),
                                timeout=600, after=final_at)
            else:
                server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["version"] == version, timeout=600, after=at)
            t_done = time.monotonic()
            settle(server, quiet_s=2.0, timeout=600)
            rss1, cpu1, top = rss_bytes(server.pid), server.cpu_seconds(), peak.stop()
            window = server.since(at)
            publishes = sum(1 for m in window if m.get("method") == "textDocument/publishDiagnostics")
            progress = [m["params"]["value"] for m in window if m.get("method") == "$/progress"]
            begun = sum(1 for v in progress if v.get("kind") == "begin")
            ends = [v.get("message", "") for v in progress if v.get("kind") == "end"]
            mode = f"compiles (trusted, check on save, pace {args.pace} s)" if args.compile else "lints only"
            print(f"mode: {mode}")
            print(f"{args.edits} edits sent in {t_sent - t0:.2f} s "
                  f"({args.edits // 50} saves); publishes during the storm: {publishes}")
            if args.compile:
                print(f"final save -> final check's result: {t_done - t_sent:.1f} s; checks begun {begun}, "
                      f"cancelled {ends.count('cancelled')}, completed {sum(1 for e in ends if e.startswith('done'))}")
            else:
                print(f"last edit sent -> its publish: {t_done - t_sent:.2f} s")
            print(f"RSS before {mib(rss0)}, peak {mib(top)}, after settling {mib(rss1)} "
                  f"({(rss1 - rss0) / rss0:+.1%}); server CPU {cpu1 - cpu0:.1f} s")
        finally:
            server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

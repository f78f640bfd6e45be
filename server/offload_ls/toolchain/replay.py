"""Replaying the last rustc invocation of a check pass without cargo.

On save, cargo spends most of a warm check deciding that nothing but the user's crate
changed (measured: ``cargo rustc --profile check`` 0.2-0.3 s vs the same rustc command run
directly 0.13 s, examples/offload-kernels). So the first run of a replayable pass asks cargo
for its rustc command line (``-vv`` prints ``Running `ENV=.. rustc ..```), and later runs
execute that command directly while the crate's manifests are unchanged. Anything unusual
(a manifest changed, the replay fails without diagnostics, a dependency looks stale) falls
back to cargo.

The ``Running`` line is a shell-quoted command printed by cargo, not Rust: it is split with
:func:`shlex.split`, and nothing is ever run through a shell.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from offload_ls.toolchain.plan import Pass

_ENV_NAME = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789abcdefghijklmnopqrstuvwxyz")
#: rustc errors that mean the recorded command no longer matches the dependencies.
STALE_ERRORS = ("E0460", "E0463", "E0514", "E0519")


@dataclass(frozen=True)
class Recorded:
    """A captured rustc command: argv, the environment cargo gave it, its stamp."""

    argv: tuple[str, ...]
    env: dict[str, str]
    stamp: tuple


def with_verbose(p: Pass) -> tuple[str, ...]:
    """The pass's cargo argv with ``-vv`` after the ``rustc`` subcommand."""
    argv = list(p.argv)
    i = argv.index("rustc")
    return tuple(argv[: i + 1] + ["-vv"] + argv[i + 1 :])


def parse_running(stderr: str, crate_name: str) -> tuple[tuple[str, ...], dict[str, str]] | None:
    """The last ``Running `...``` command of cargo's ``-vv`` stderr that compiles
    ``crate_name`` (underscored) with JSON errors: (argv, env)."""
    found = None
    for line in stderr.splitlines():
        line = line.strip()
        if not line.startswith("Running `") or not line.endswith("`"):
            continue
        try:
            words = shlex.split(line[len("Running `"):-1])
        except ValueError:
            continue
        env = {}
        while words and "=" in words[0] and set(words[0].split("=", 1)[0]) <= _ENV_NAME:
            k, v = words.pop(0).split("=", 1)
            env[k] = v
        if "--crate-name" in words and words[words.index("--crate-name") + 1] == crate_name \
                and "--error-format=json" in words:
            found = (tuple(words), env)
    return found


def stamp(manifest: Path) -> tuple:
    """What must not change for a replay to be valid: the manifest and lock file."""
    out = []
    for f in (manifest, manifest.with_name("Cargo.lock")):
        try:
            st = f.stat()
            out.append((str(f), st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((str(f), None, None))
    return tuple(out)


def as_cargo_records(rustc_stderr: str) -> str:
    """rustc's JSON diagnostics (stderr lines) wrapped as cargo ``compiler-message``
    records, so :func:`offload_ls.toolchain.diagnostics.parse_cargo_output` reads them."""
    out = []
    for line in rustc_stderr.splitlines():
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if obj.get("$message_type") == "diagnostic":
            out.append(json.dumps({"reason": "compiler-message", "message": obj}))
    return "\n".join(out)


class ReplayCache:
    """Recorded commands per pass (keyed by the pass's cargo argv). One per server."""

    def __init__(self) -> None:
        self._by_pass: dict[tuple[str, ...], Recorded] = {}

    def get(self, p: Pass, manifest: Path) -> Recorded | None:
        rec = self._by_pass.get(p.argv)
        if rec is not None and rec.stamp != stamp(manifest):
            del self._by_pass[p.argv]
            return None
        return rec

    def record(self, p: Pass, manifest: Path, crate_name: str, cargo_stderr: str) -> None:
        parsed = parse_running(cargo_stderr, crate_name.replace("-", "_"))
        if parsed is not None:
            argv, env = parsed
            self._by_pass[p.argv] = Recorded(argv, env, stamp(manifest))

    def forget(self, p: Pass) -> None:
        self._by_pass.pop(p.argv, None)


def replay_env(p: Pass, rec: Recorded) -> dict[str, str]:
    env = dict(p.env)
    env.update(rec.env)
    env.setdefault("PATH", os.environ.get("PATH", ""))
    return env

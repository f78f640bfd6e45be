"""Run targets: where ``offload-ls run`` and the editor's "Run on GPU" run a built binary.

A target is ``local`` (this machine, the default), ``ssh`` (a GPU machine reached with the
user's own ``ssh``/``scp`` and their ssh config and agent) or ``slurm`` (a batch job
through ``sbatch``; on this machine when ``host`` is empty, else on the login node
``host`` over ssh). Targets are named tables, from Cargo.toml::

    [package.metadata.offload-ls.run-targets.h200]     # or [workspace.metadata.offload-ls.run-targets.h200]
    kind = "slurm"
    host = "login.cluster.example"                    # empty or absent: Slurm on this machine
    work-dir = "~/offload-ls"                          # where bundles are staged (shared with the nodes)
    partition = "gpu"
    gpus = 1                                           # or gres = "gpu:h200:1"
    time-limit = "00:10:00"

and from the editor's ``offload-ls.runTargets`` (the same tables, camelCase keys accepted);
``run-target = "h200"`` / ``offload-ls.runTarget`` picks the one used by default
(docs/remote.md). Every value is validated here, before anything runs: host names,
partitions and options become argv entries of ``ssh``/``sbatch`` and must not be able to
smuggle an option or a shell word in (issue 14: "no remote command is built by string
concatenation; host names and options are validated").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from offload_ls.workspace.cargo import RunTargetTables

#: where a bundle runs: this machine, a host over ssh, a Slurm batch job
TargetKind = Literal["local", "ssh", "slurm"]
KINDS: tuple[TargetKind, ...] = ("local", "ssh", "slurm")

_HOST = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.-]*@)?[A-Za-z0-9_][A-Za-z0-9_.:-]*")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_GRES = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:,-]*")
_TIME = re.compile(r"(?:\d+-)?\d+(?::\d{1,2}){0,2}")
_PATH = re.compile(r"(?:~/|/)[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)*/?|~")
_ARCH = re.compile(r"(?:sm_\d+[a-z]?|gfx[0-9a-f]+)")
_SBATCH_OPTION = re.compile(r"--[a-z][a-z-]*(?:=[A-Za-z0-9_.:,@%/+=-]*)?")
_SSH_OPTION = re.compile(r"([A-Za-z]+)=[A-Za-z0-9_.:,@%/+~-]*")

#: ssh options a target may set (ssh_config(5)); not those that run a command here or
#: there (ProxyCommand, LocalCommand, KnownHostsCommand, RemoteCommand, Match exec ..).
SSH_OPTIONS = frozenset({
    "AddressFamily", "BatchMode", "BindAddress", "CheckHostIP", "Ciphers", "Compression", "ConnectTimeout",
    "ConnectionAttempts", "ControlMaster", "ControlPath", "ControlPersist", "GSSAPIAuthentication",
    "HostKeyAlias", "HostName", "IdentitiesOnly", "IdentityAgent", "IdentityFile", "IPQoS", "LogLevel",
    "Port", "PreferredAuthentications", "ProxyJump", "PubkeyAuthentication", "ServerAliveCountMax",
    "ServerAliveInterval", "StrictHostKeyChecking", "TCPKeepAlive", "User", "UserKnownHostsFile",
    "UpdateHostKeys", "VerifyHostKeyDNS",
})

#: sbatch options offload-ls sets itself (the run depends on them): not allowed in
#: ``sbatch-options``.
RESERVED_SBATCH = ("--output", "--error", "--chdir", "--parsable", "--wrap", "--export", "--job-name",
                   "--requeue", "--no-requeue", "--partition", "--account", "--gres", "--gpus", "--time",
                   "--input", "--wait", "--test-only", "--array", "--het-group", "--uid", "--gid")

#: GRES GPU types (``sinfo`` ``%G``, lower case) -> the arch their images need. Sources:
#: NVIDIA's CUDA GPU compute-capability table (H100/H200/GH200 9.0, A100/A30 8.0, A10/A40/
#: L4... 8.6/8.9, V100 7.0) and AMD's ROCm GPU list (MI300 gfx942, MI250/MI210 gfx90a,
#: MI100 gfx908).
GRES_ARCH = {
    "h100": "sm_90", "h200": "sm_90", "gh200": "sm_90", "h800": "sm_90",
    "a100": "sm_80", "a800": "sm_80", "a30": "sm_80", "a10": "sm_86", "a40": "sm_86", "a6000": "sm_86",
    "l4": "sm_89", "l40": "sm_89", "l40s": "sm_89", "v100": "sm_70", "b200": "sm_100", "gb200": "sm_100",
    "mi300a": "gfx942", "mi300x": "gfx942", "mi300": "gfx942", "mi250x": "gfx90a", "mi250": "gfx90a",
    "mi210": "gfx90a", "mi100": "gfx908",
}


class TargetError(ValueError):
    """A run target's settings are wrong, or the target cannot run this bundle; the message
    says which value and what to write instead."""


@dataclass(frozen=True)
class RunTarget:
    """One validated run target.

    Attributes:
        name: the table's name (``local`` for the built-in one).
        kind: ``local`` / ``ssh`` / ``slurm``.
        host: ssh destination (``[user@]host``, an alias of the user's ssh config); for
            ``slurm``, the login node ("" = Slurm on this machine).
        work_dir: staging directory on the target (``~/...`` or absolute), shared with the
            compute nodes for ``slurm``.
        ssh_options: ``-o Key=Value`` options for ssh/scp (``Port=2222``); ssh_config: a
            ``-F`` config file of this machine ("" = the user's default).
        partition / account / gres / gpus / time_limit / sbatch_options: ``sbatch``'s
            ``--partition``, ``--account``, ``--gres``, ``--gpus``, ``--time`` and more options.
        gpu_arch: the target's GPU arch (``sm_90``) when Slurm cannot say (no GRES type).
        queue_timeout_s: seconds a job may wait in the queue before it is cancelled.
        connect_timeout_s: seconds for one ssh connection to be set up.
    """

    name: str = "local"
    kind: TargetKind = "local"
    host: str = ""
    work_dir: str = "~/.cache/offload-ls/runs"
    ssh_options: tuple[str, ...] = ()
    ssh_config: str = ""
    partition: str = ""
    account: str = ""
    gres: str = ""
    gpus: int | None = None
    time_limit: str = ""
    sbatch_options: tuple[str, ...] = ()
    gpu_arch: str = ""
    queue_timeout_s: float = 3600.0
    connect_timeout_s: float = 15.0

    @property
    def remote(self) -> bool:
        """True when the run leaves this process's machine or goes through a scheduler."""
        return self.kind != "local"

    def describe(self) -> str:
        """One line for progress messages: ``slurm partition gpu on login1``."""
        if self.kind == "local":
            return "this machine"
        if self.kind == "ssh":
            return f"{self.host} (ssh)"
        where = f" via {self.host}" if self.host else ""
        return f"Slurm partition {self.partition or '(default)'}{where}"


LOCAL = RunTarget()

_KEYS = {
    "kind": "kind", "host": "host", "work-dir": "work_dir", "workDir": "work_dir",
    "ssh-options": "ssh_options", "sshOptions": "ssh_options", "ssh-config": "ssh_config",
    "sshConfig": "ssh_config", "partition": "partition", "account": "account", "gres": "gres",
    "gpus": "gpus", "time-limit": "time_limit", "timeLimit": "time_limit",
    "sbatch-options": "sbatch_options", "sbatchOptions": "sbatch_options", "gpu-arch": "gpu_arch",
    "gpuArch": "gpu_arch", "queue-timeout-s": "queue_timeout_s", "queueTimeoutS": "queue_timeout_s",
    "connect-timeout-s": "connect_timeout_s", "connectTimeoutS": "connect_timeout_s",
}


def parse_target(name: str, table: Any, where: str) -> RunTarget:
    """Validate one target table (Cargo.toml or editor settings).

    Args:
        name: the table's name; where: what to call its origin in messages
            (``Cargo.toml: [package.metadata.offload-ls.run-targets.h200]``).

    Raises:
        TargetError: an unknown key, a value of the wrong type, or a value that is not a
            plain host / partition / option (the message names the key and what is allowed).
    """
    if not _WORD.fullmatch(name):
        raise TargetError(f"{where}: target name {name!r} must be letters, digits, '_', '.' or '-'")
    if not isinstance(table, dict):
        raise TargetError(f"{where}: expected a table of settings, got {type(table).__name__}")
    values: dict[str, Any] = {"name": name}
    for key, value in table.items():
        attr = _KEYS.get(key)
        if attr is not None and attr in values:
            raise TargetError(f"{where}: `{key}` gives {attr.replace('_', '-')} a second time (as "
                              f"`{next(k for k, a in _KEYS.items() if a == attr and k in table and k != key)}` too)")
        if attr is None:
            known = ", ".join(k for k in _KEYS if not any(c.isupper() for c in k))
            raise TargetError(f"{where}: unknown key `{key}` (known: {known})")
        values[attr] = _check_value(attr, key, value, where)
    kind = values.get("kind")
    if kind is None:
        raise TargetError(f"{where}: `kind` is missing (one of {', '.join(KINDS)})")
    if kind == "ssh" and not values.get("host"):
        raise TargetError(f"{where}: an ssh target needs `host` (a host name or an alias of your ssh config)")
    if kind == "local" and len(values) > 2:
        extra = sorted(k for k in table if k != "kind")
        raise TargetError(f"{where}: a local target takes no other keys (got {', '.join(extra)})")
    if values.get("gres") and values.get("gpus") is not None:
        raise TargetError(f"{where}: give `gres` or `gpus`, not both")
    return RunTarget(**values)


def _check_value(attr: str, key: str, value: Any, where: str) -> Any:
    """One validated value of a target table (see :func:`parse_target`)."""
    def bad(why: str) -> TargetError:
        return TargetError(f"{where}: `{key}` = {value!r}: {why}")

    if attr in ("queue_timeout_s", "connect_timeout_s"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise bad("expected a finite number of seconds > 0")
        return float(value)
    if attr == "gpus":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise bad("expected a whole number of GPUs >= 1")
        return value
    if attr in ("ssh_options", "sbatch_options"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("expected a list of strings")
        pattern, shape = ((_SSH_OPTION, "Key=Value, as ssh's -o takes it (Port=2222)") if attr == "ssh_options"
                          else (_SBATCH_OPTION, "--option or --option=value"))
        for v in value:
            m = pattern.fullmatch(v)
            if not m:
                raise bad(f"{v!r} is not {shape} without spaces or shell characters")
            if attr == "ssh_options" and m.group(1) not in SSH_OPTIONS:
                raise bad(f"ssh option {m.group(1)} is not allowed here (it could run a program; allowed: "
                          f"{', '.join(sorted(SSH_OPTIONS))}); set it in your ssh config instead")
            name = v.split("=", 1)[0]
            # sbatch takes any unambiguous prefix of a long option (`--outp` is `--output`)
            taken = [r for r in RESERVED_SBATCH if r.startswith(name)] if attr == "sbatch_options" else []
            if taken:
                raise bad(f"{name} is (or abbreviates) {taken[0]}, which offload-ls sets itself (use the target's "
                          f"own keys: partition, account, gres, gpus, time-limit)")
        return tuple(value)
    if not isinstance(value, str):
        raise bad("expected a string")
    checks = {
        "kind": (lambda v: v in KINDS, f"one of {', '.join(KINDS)}"),
        "host": (lambda v: v == "" or (_HOST.fullmatch(v) and not v.startswith("-")),
                 "a host name, user@host or an ssh config alias (letters, digits, '.', '-', '_')"),
        "work_dir": (lambda v: bool(_PATH.fullmatch(v)) and ".." not in v.split("/"),
                     "an absolute path or one under ~/ (not a relative one), of letters, digits, '.', '_', '-', '+'"),
        "ssh_config": (lambda v: v == "" or (v.startswith(("/", "~/")) and "\0" not in v), "an absolute path or ~/..."),
        "partition": (lambda v: v == "" or _WORD.fullmatch(v), "a partition name"),
        "account": (lambda v: v == "" or _WORD.fullmatch(v), "an account name"),
        "gres": (lambda v: v == "" or _GRES.fullmatch(v), "a GRES like gpu:1 or gpu:h200:2"),
        "time_limit": (lambda v: v == "" or _TIME.fullmatch(v), "a Slurm time like 10, 00:10:00 or 1-00:00:00"),
        "gpu_arch": (lambda v: v == "" or _ARCH.fullmatch(v), "an arch like sm_90 or gfx90a"),
    }
    ok, shape = checks[attr]
    if not ok(value):
        raise bad(f"expected {shape}")
    return value


def choose_target(found: RunTargetTables, name: str | None = None) -> RunTarget:
    """The target ``name`` (or ``found``'s default) from Cargo.toml's and the editor's
    tables (workspace/cargo.py :func:`load_run_targets`); ``local`` when none is set.

    Raises:
        TargetError: the name is not defined (the message lists those that are), or its
            table is invalid.
    """
    wanted = name or found.default
    if not wanted or wanted == "local" and "local" not in found.tables:
        return LOCAL
    if wanted not in found.tables:
        known = ", ".join(["local", *sorted(found.tables)])
        origin = "" if name else f" (chosen by {found.default_origin})"
        raise TargetError(f"no run target named {wanted!r}{origin}; defined: {known}. Define it in Cargo.toml as "
                          f"[package.metadata.offload-ls.run-targets.{wanted}] (docs/remote.md)")
    table, origin = found.tables[wanted]
    return parse_target(wanted, table, origin)


def select_target(manifest, name: str | None, editor_tables: dict | None = None,
                  editor_default: str | None = None, problems: list[str] | None = None) -> RunTarget:
    """The run target ``name`` for the crate of ``manifest``, else the editor's default
    (``offload-ls.runTarget``), else Cargo.toml's ``run-target``, else ``local``: the editor's
    ``runTargets`` tables over Cargo.toml's (workspace/cargo.py :func:`load_run_targets`).

    Args:
        problems: gets the problems of reading Cargo.toml's tables (before anything raises).

    Raises:
        TargetError: no such target, or its table is invalid (the message says which value)."""
    from offload_ls.workspace.cargo import load_run_targets

    found = load_run_targets(manifest)
    if problems is not None:
        problems += found.problems
    for key, table in (editor_tables or {}).items():
        found.tables[key] = (table, f"setting offload-ls.runTargets.{key}")
    if editor_default:
        found.default, found.default_origin = editor_default, "setting offload-ls.runTarget"
    return choose_target(found, name)


def arch_of_gres(gres: str) -> list[str]:
    """GPU archs named by a Slurm GRES string (``gpu:h200:4(S:0-1),gpu:a100:2`` ->
    ``["sm_90", "sm_80"]``); types not in :data:`GRES_ARCH` are left out."""
    archs = []
    for part in gres.split(","):
        bits = part.split("(")[0].split(":")
        if len(bits) >= 3 and bits[0] == "gpu":
            arch = GRES_ARCH.get(bits[1].lower())
            if arch and arch not in archs:
                archs.append(arch)
    return archs

"""A real Slurm cluster and a real sshd on localhost, for tests/gpu/test_remote.py.

Debian's slurm-wlm 22.05 (slurmctld + slurmd, munge authentication) and openssh-server,
started here as root with everything in a temporary directory: a munge key and socket,
slurm.conf (one partition ``gpu`` of this machine with one ``gpu:h200`` GRES backed by a
placeholder device file, no accounting, a short SlurmdTimeout so a stopped slurmd is noticed
in seconds), sshd on a free localhost port with a generated host key and a user key, and an
ssh config whose alias ``gpunode`` reaches it. ``.ci/run`` installs the packages; every
daemon is started with an argv list and a timeout and stopped at the end of the session.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel", "scontrol", "sshd", "ssh",
           "scp", "ssh-keygen")


def missing_reason() -> str | None:
    """Why the cluster cannot be started here, or ``None``."""
    if os.geteuid() != 0:
        return "starting slurmd and sshd needs root (CI runs as root)"
    paths = {d: shutil.which(d) or (f"/usr/sbin/{d}" if Path(f"/usr/sbin/{d}").exists() else None) for d in DAEMONS}
    absent = [d for d, p in paths.items() if p is None]
    if absent:
        return f"not installed: {', '.join(absent)} (apt-get install slurm-wlm munge openssh-server openssh-client)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(argv: list[str], timeout: float = 60.0, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, check=False)


def _sbin(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


class LocalCluster:
    """Munge + slurmctld + slurmd + sshd under ``root`` (a temporary directory).

    Attributes:
        env: environment for Slurm's commands (``SLURM_CONF``); node: this machine's node
            name; ssh_config: a config file with the ``gpunode`` alias.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.node = socket.gethostname().split(".")[0]
        self.conf = root / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.ssh_config = root / "ssh" / "config"
        self.ssh_port = _free_port()

    # ------------------------------------------------------------------ start / stop

    def start(self) -> None:
        r = self.root
        for d in ("munge", "state", "spool", "log", "dev", "ssh"):
            (r / d).mkdir(parents=True, exist_ok=True)
        key = r / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        (r / "munge").chmod(0o711)
        self._check(_run([_sbin("munged"), "--force", f"--key-file={key}", f"--socket={r / 'munge' / 'sock'}",
                          f"--pid-file={r / 'munge' / 'pid'}", f"--log-file={r / 'munge' / 'log'}",
                          f"--seed-file={r / 'munge' / 'seed'}"]), "munged")
        (r / "dev" / "nvidia0").touch()
        (r / "gres.conf").write_text(f"NodeName={self.node} Name=gpu Type=h200 File={r / 'dev' / 'nvidia0'}\n")
        ctld_port, d_port = _free_port(), _free_port()
        self.conf.write_text("\n".join([
            "ClusterName=offloadls", f"SlurmctldHost={self.node}(127.0.0.1)", "SlurmUser=root", "SlurmdUser=root",
            f"SlurmctldPort={ctld_port}", f"SlurmdPort={d_port}", "AuthType=auth/munge",
            f"AuthInfo=socket={r / 'munge' / 'sock'}", "CredType=cred/munge", f"StateSaveLocation={r / 'state'}",
            f"SlurmdSpoolDir={r / 'spool'}", f"SlurmctldPidFile={r / 'ctld.pid'}", f"SlurmdPidFile={r / 'd.pid'}",
            f"SlurmctldLogFile={r / 'log' / 'ctld.log'}", f"SlurmdLogFile={r / 'log' / 'd.log'}",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobCompType=jobcomp/none",
            "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none", "SchedulerType=sched/builtin", "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core", "ReturnToService=2", "SlurmdTimeout=5", "MinJobAge=600",
            "GresTypes=gpu",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} RealMemory=500 Gres=gpu:h200:1 "
            f"State=UNKNOWN",
            "PartitionName=gpu Nodes=ALL Default=YES MaxTime=60 State=UP", ""]))
        self._check(_run([_sbin("slurmctld"), "-f", str(self.conf)], env=self.env), "slurmctld")
        self.start_slurmd()
        self._start_sshd()

    def start_slurmd(self) -> None:
        """Start slurmd and wait until the node takes jobs (``idle``/``mixed``)."""
        self._check(_run([_sbin("slurmd"), "-f", str(self.conf)], env=self.env), "slurmd")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = self.node_state()
            if state.startswith(("idle", "mixed", "alloc")) and not state.endswith("*"):
                return
            if state.startswith(("down", "drain", "inval")) or state.endswith("*"):
                _run(["scontrol", "update", f"nodename={self.node}", "state=resume"], env=self.env)
            time.sleep(0.5)
        raise RuntimeError(f"node {self.node} never became idle (state {self.node_state()!r}); "
                           f"{self._tail('log/d.log')}{self._tail('log/ctld.log')}")

    def stop_slurmctld(self) -> None:
        """Stop the controller (a restart, an outage of the login node's Slurm)."""
        pid = self._pid("ctld.pid")
        if pid:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    return
                time.sleep(0.2)

    def start_slurmctld(self) -> None:
        self._check(_run([_sbin("slurmctld"), "-f", str(self.conf)], env=self.env), "slurmctld")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.node_state():
            time.sleep(0.5)

    def set_partition(self, state: str) -> None:
        """``scontrol update partitionname=gpu state=..`` (UP / DOWN)."""
        done = _run(["scontrol", "update", "partitionname=gpu", f"state={state}"], env=self.env)
        if done.returncode != 0:
            raise RuntimeError(f"scontrol update partition: {done.stderr}")

    def stop_slurmd(self) -> None:
        """Kill slurmd as a crashed node would go (SIGKILL: no goodbye to slurmctld)."""
        pid = self._pid("d.pid")
        if pid:
            os.kill(pid, signal.SIGKILL)
            (self.root / "d.pid").unlink(missing_ok=True)

    def _start_sshd(self) -> None:
        s = self.root / "ssh"
        for name in ("hostkey", "userkey"):
            if not (s / name).exists():
                self._check(_run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(s / name)]), "ssh-keygen")
        shutil.copy(s / "userkey.pub", s / "authorized_keys")
        (s / "authorized_keys").chmod(0o600)
        (s / "sshd_config").write_text("\n".join([
            f"Port {self.ssh_port}", "ListenAddress 127.0.0.1", f"HostKey {s / 'hostkey'}",
            f"AuthorizedKeysFile {s / 'authorized_keys'}", "PasswordAuthentication no",
            "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", f"PidFile {s / 'sshd.pid'}",
            "StrictModes no", "UsePAM no", "Subsystem sftp internal-sftp",
            # a login node's Slurm commands find its slurm.conf: here through sshd's SetEnv
            f"SetEnv SLURM_CONF={self.conf}", ""]))
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
        self._check(_run([_sbin("sshd"), "-f", str(s / "sshd_config"), "-E", str(s / "log")]), "sshd")
        self.ssh_config.write_text("\n".join([
            "Host gpunode", "  HostName 127.0.0.1", f"  Port {self.ssh_port}", "  User root",
            f"  IdentityFile {s / 'userkey'}", "  IdentitiesOnly yes", "  StrictHostKeyChecking accept-new",
            f"  UserKnownHostsFile {s / 'known_hosts'}", ""]))

    def stop(self) -> None:
        for pidfile in ("ssh/sshd.pid", "d.pid", "ctld.pid", "munge/pid"):
            pid = self._pid(pidfile)
            if pid:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass

    # ------------------------------------------------------------------ queries

    def node_state(self) -> str:
        done = _run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env, timeout=30)
        return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""

    def jobs(self) -> list[str]:
        """Ids of the jobs Slurm knows (any state)."""
        done = _run(["scontrol", "show", "job", "-o"], env=self.env, timeout=30)
        return [w.split("=", 1)[1] for line in done.stdout.splitlines() for w in line.split()[:1]
                if w.startswith("JobId=")]

    def _pid(self, rel: str) -> int | None:
        try:
            return int((self.root / rel).read_text().strip())
        except (OSError, ValueError):
            return None

    def _tail(self, rel: str) -> str:
        try:
            return f"\n--- {rel}:\n" + "\n".join((self.root / rel).read_text(errors="replace").splitlines()[-15:])
        except OSError:
            return ""

    def _check(self, done: subprocess.CompletedProcess, what: str) -> None:
        if done.returncode != 0:
            raise RuntimeError(f"{what} did not start (exit {done.returncode}): {done.stderr.strip()[-800:]}"
                               f"{self._tail('log/ctld.log')}")

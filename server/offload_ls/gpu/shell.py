"""Run argv lists on a run target: here (Slurm on this machine) or through the user's ssh.

ssh has no argv form: each command becomes the one string ssh sends by quoting each word
with :func:`shlex.join`, so no value is ever spliced into shell text.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from offload_ls.gpu.targets import RunTarget
from offload_ls.toolchain.process import CancelToken, Completed, run_async


class Shell:
    """Runs argv lists on a target: here (Slurm on this machine) or through the user's ssh.

    ssh runs with ``BatchMode=yes`` (a password prompt would hang an editor: the user's
    agent or keys must work) and the target's ``ssh-options``/``ssh-config``.
    """

    def __init__(self, target: RunTarget) -> None:
        self.target = target

    @property
    def local(self) -> bool:
        return not self.target.host

    def _ssh_base(self, program: str) -> list[str]:
        t = self.target
        argv = [program, "-o", "BatchMode=yes"]
        if not any(o.lower().startswith("connecttimeout=") for o in t.ssh_options):
            argv += ["-o", f"ConnectTimeout={max(1, int(t.connect_timeout_s))}"]
        if t.ssh_config:
            argv += ["-F", os.path.expanduser(t.ssh_config)]
        for opt in t.ssh_options:
            argv += ["-o", opt]
        return argv

    def argv(self, command: Sequence[str]) -> list[str]:
        """The local argv that runs ``command`` on the target."""
        if self.local:
            return list(command)
        return [*self._ssh_base("ssh"), "--", self.target.host, shlex.join(command)]

    async def run(self, command: Sequence[str], *, timeout: float, cancel: CancelToken | None = None,
                  on_stdout: Callable[[str], None] | None = None,
                  on_stderr: Callable[[str], None] | None = None) -> Completed:
        """Run ``command`` on the target (never raises; see :class:`Completed`)."""
        return await run_async(self.argv(command), timeout=timeout, cancel=cancel,
                               on_stdout_line=on_stdout, on_stderr_line=on_stderr)

    def unreachable(self, done: Completed) -> str | None:
        """A sentence saying the target could not be reached, or ``None``: ssh's own
        failures exit with 255 (ssh(1), EXIT STATUS)."""
        if done.error:
            return f"could not run {done.argv[0]}: {done.error}"
        if self.local or done.returncode != 255:
            return None
        why = (done.stderr.strip().splitlines() or ["ssh exited with status 255"])[-1]
        probe = shlex.join([*self._ssh_base("ssh"), "--", self.target.host, "true"])
        return (f"cannot reach {self.target.host} over ssh ({why}); check that `{probe}` works "
                f"without a password prompt (offload-ls runs ssh with BatchMode=yes: use ssh-agent or a key)")

    async def upload(self, files: Sequence[tuple[Path, str]], remote_dir: str, timeout: float,
                     cancel: CancelToken | None = None) -> Completed | None:
        """Copy local files to ``remote_dir`` on the target, each under the given name
        (``scp -p`` through a directory of links named so; a copy here for a local
        target). ``None`` when there was nothing to copy or all went well locally."""
        if not files:
            return None
        if self.local:
            dest = Path(remote_dir)
            dest.mkdir(parents=True, exist_ok=True)
            for src, name in files:
                shutil.copy2(src, dest / name)
            return None
        with tempfile.TemporaryDirectory(prefix="offload-ls-stage-") as tmp:
            named = []
            for src, name in files:
                link = Path(tmp) / name
                link.symlink_to(src.resolve())
                named.append(str(link))
            return await run_async([*self._ssh_base("scp"), "-q", "-p", "--", *named,
                                    f"{self.target.host}:{remote_dir}/"], timeout=timeout, cancel=cancel)

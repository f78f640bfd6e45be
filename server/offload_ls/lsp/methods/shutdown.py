"""``shutdown``: stop background work; builds and runs are cancelled and awaited, so a
Slurm job or remote program does not outlive the session."""

from __future__ import annotations

from lsprotocol import types

METHOD = types.SHUTDOWN


async def handle(ls, params: None) -> None:
    ls.files.stop()
    ls.jobs.cancel_all()
    await ls.gpu.wind_down()

"""``initialized``: report init-option problems, pull the configuration, set up file
watching, start the workspace scan (``scanWorkspace``) and probe the toolchain of a
trusted workspace."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from offload_ls.lsp import settings_sync

METHOD = types.INITIALIZED


async def handle(ls, params: types.InitializedParams) -> None:
    ls.bind_loop()
    session = ls.session
    settings_sync.report_problems(ls, session.init_problems)
    new, problems = await settings_sync.pull(ls)
    settings_sync.report_problems(ls, problems)
    if new != session.settings:
        session.settings = new
        ls.analyses.reanalyze_open_documents()
    await ls.files.register_watched_files()
    if session.settings.scanWorkspace:
        await ls.files.start_watching()
        ls.files.start_scan()
    if any(session.settings.trusts(root) for root in session.workspace_roots()):
        # Probe the toolchain now (logged; one showMessage if nothing can compile for a
        # GPU) rather than on the first save. Untrusted workspaces start no compiler.
        asyncio.get_running_loop().run_in_executor(None, ls.session.toolchain.doctor)

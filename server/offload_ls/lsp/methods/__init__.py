"""One module per LSP method (ruff_server's ``api/requests`` and ``api/notifications``):
each has ``METHOD`` (lsprotocol's method name), optional ``OPTIONS`` (the capability's
registration options) and ``handle(ls, params)``, a small function that reads the session
or a :class:`~offload_ls.lsp.session.DocumentSnapshot` and calls the feature modules
(lsp/hover.py, lsp/code_actions.py, ...). :mod:`offload_ls.lsp.handlers` registers them;
:mod:`.commands` holds the ``workspace/executeCommand`` commands."""

from offload_ls.lsp.methods import (
    code_action,
    code_lens,
    did_change,
    did_change_configuration,
    did_change_watched_files,
    did_change_workspace_folders,
    did_close,
    did_open,
    did_save,
    hover,
    initialize,
    initialized,
    inlay_hint,
    shutdown,
    work_done_progress_cancel,
)

#: every LSP method module, registered in this order
ALL = (initialize, initialized, shutdown, did_open, did_change, did_save, did_close, hover, code_action,
       inlay_hint, code_lens, work_done_progress_cancel, did_change_configuration, did_change_watched_files,
       did_change_workspace_folders)

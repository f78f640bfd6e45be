"""One module per LSP method (ruff_server's ``api/requests`` and ``api/notifications``):
each has ``METHOD`` (lsprotocol's method name), optional ``OPTIONS`` (the capability's
registration options) and ``handle``. :mod:`offload_ls.lsp.handlers` registers them;
:mod:`.commands` holds the ``workspace/executeCommand`` commands.

Two kinds of handler:

- requests about one document (:data:`DOCUMENT_REQUESTS`): ``handle(snapshot, params)``, a
  function of a :class:`~offload_ls.lsp.session.DocumentSnapshot` (the text, its analysis,
  its crate's results, the settings and what the client can show, as they were when the
  request came) and the params only; it reads nothing else and changes nothing;
- notifications and session requests (:data:`SESSION_METHODS`): ``handle(ls, params)``,
  which change the session (open documents, settings, trust) or end it.
"""

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

#: requests answered from a snapshot of ``params.text_document``
DOCUMENT_REQUESTS = (hover, code_action, inlay_hint, code_lens)
#: notifications and requests that change or end the session
SESSION_METHODS = (initialize, initialized, shutdown, did_open, did_change, did_save, did_close,
                   work_done_progress_cancel, did_change_configuration, did_change_watched_files,
                   did_change_workspace_folders)

"""``initialize``: read ``initializationOptions`` and wait for the warm-up.

The position encoding is chosen earlier, in :class:`offload_ls.lsp.protocol.OffloadProtocol`
(before pygls builds the capabilities it answers with)."""

from __future__ import annotations

import logging

from lsprotocol import types

from offload_ls.lsp.command_args import SHOW_ASSEMBLY
from offload_ls.lsp.config import parse_client_settings
from offload_ls.lsp.crate_state import ClientView

log = logging.getLogger(__name__)

METHOD = types.INITIALIZE
#: most seconds `initialize` waits for the warm-up analysis (analysis/engine.py ``warm_up``)
WARM_UP_TIMEOUT_S = 10.0


def handle(ls, params: types.InitializeParams) -> None:
    """Read what the client can show (lsp/crate_state.py ``ClientView``); parse
    ``initializationOptions`` (problems are reported at ``initialized``), and wait
    for the documents' worker to be warm (started with the process): the first document's
    analysis then does not pay for importing the rules and compiling the queries (about
    0.2-0.6 s on these machines)."""
    session = ls.session
    session.client = ClientView.of(params.capabilities, SHOW_ASSEMBLY)
    session.init_settings, session.init_problems = parse_client_settings(params.initialization_options)
    session.settings = session.init_settings
    try:  # started with the process; `initialize` is answered when it is done
        ls.warmed.result(timeout=WARM_UP_TIMEOUT_S)
    except Exception:  # noqa: BLE001 - a slow or failed warm-up only costs the first analysis
        log.warning("warm-up not done within %s s", WARM_UP_TIMEOUT_S)

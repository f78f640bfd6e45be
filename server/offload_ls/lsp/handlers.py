"""LSP method -> server method. Each handler is one line: the work lives on
:class:`~offload_ls.lsp.server.OffloadLanguageServer` and the feature modules."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import assembly, commands, profile
from offload_ls.lsp.assembly import AssemblyArgs
from offload_ls.lsp.commands import BuildArgs, RunArgs, UriArgs
from offload_ls.lsp.profile import ProfileArgs
from offload_ls.lsp.server import OffloadLanguageServer


def register(server: OffloadLanguageServer) -> None:
    """Register every feature offload-ls implements on ``server``."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: OffloadLanguageServer, params: types.InitializeParams) -> None:
        ls.set_init_options(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: OffloadLanguageServer, params: types.InitializedParams) -> None:
        await ls.on_initialized()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: OffloadLanguageServer, params: None) -> None:
        ls.stop_background()
        await ls.gpu.wind_down()  # a Slurm job or remote program must not outlive the session

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: OffloadLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.did_open(params)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: OffloadLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.did_change(params)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: OffloadLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.did_save(params)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: OffloadLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.did_close(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: OffloadLanguageServer, params: types.HoverParams) -> types.Hover | None:
        return await ls.hover(params)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    async def code_action(ls: OffloadLanguageServer, params: types.CodeActionParams):
        return await ls.code_action(params)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(ls: OffloadLanguageServer, params: types.InlayHintParams):
        return await ls.inlay_hints(params)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(ls: OffloadLanguageServer, params: types.CodeLensParams):
        return await ls.code_lens(params)

    @server.command(commands.BUILD)
    async def build(ls: OffloadLanguageServer, args: BuildArgs):
        return await ls.gpu.build(args)

    @server.command(commands.RUN)
    async def run(ls: OffloadLanguageServer, args: RunArgs):
        return await ls.gpu.run(args)

    @server.command(commands.REPORT)
    def show_run_report(ls: OffloadLanguageServer, args: UriArgs):
        return ls.gpu.show_report(args)

    @server.command(commands.DOCTOR)
    async def doctor(ls: OffloadLanguageServer):
        return await ls.gpu.doctor()

    @server.command(commands.CANCEL)
    def cancel(ls: OffloadLanguageServer, args: UriArgs):
        return ls.gpu.cancel(args)

    @server.command(profile.PROFILE)
    async def kernel_profile(ls: OffloadLanguageServer, args: ProfileArgs):
        return await profile.profile(ls.gpu, args)

    @server.command(assembly.ASSEMBLY)
    async def kernel_assembly(ls: OffloadLanguageServer, args: AssemblyArgs):
        return await assembly.assembly(ls.gpu, args)

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: OffloadLanguageServer, params: types.WorkDoneProgressCancelParams) -> None:
        ls.compiles.cancel_token(params.token)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: OffloadLanguageServer,
                                       params: types.DidChangeConfigurationParams) -> None:
        await ls.refresh_settings(params.settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: OffloadLanguageServer,
                                 params: types.DidChangeWatchedFilesParams) -> None:
        ls.did_change_watched_files(params)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(ls: OffloadLanguageServer,
                                           params: types.DidChangeWorkspaceFoldersParams) -> None:
        await ls.on_folders_changed()

"""``workspace/executeCommand``: offload-ls's commands, each with typed arguments (pygls
structures them from the handler's annotation with the hooks of
:func:`offload_ls.lsp.command_args.register_command_args`). ``ls`` is left unannotated: pygls
resolves every annotation of a command handler at run time."""

from __future__ import annotations

from offload_ls.lsp import assembly, profile
from offload_ls.lsp import command_args as names
from offload_ls.lsp.command_args import AssemblyArgs, BuildArgs, ProfileArgs, RunArgs, UriArgs


async def build(ls, args: BuildArgs):
    return await ls.gpu.build(args)


async def run(ls, args: RunArgs):
    return await ls.gpu.run(args)


def show_run_report(ls, args: UriArgs):
    return ls.gpu.show_report(args)


async def doctor(ls):
    return await ls.gpu.doctor()


def cancel(ls, args: UriArgs):
    return ls.gpu.cancel(args)


async def kernel_profile(ls, args: ProfileArgs):
    return await profile.profile(ls.gpu, args)


async def kernel_assembly(ls, args: AssemblyArgs):
    return await assembly.assembly(ls.gpu, args)


#: command name -> handler
COMMANDS = {
    names.BUILD: build,
    names.RUN: run,
    names.REPORT: show_run_report,
    names.DOCTOR: doctor,
    names.CANCEL: cancel,
    names.PROFILE: kernel_profile,
    names.ASSEMBLY: kernel_assembly,
}

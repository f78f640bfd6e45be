"""The ``workspace/executeCommand`` commands' names and typed arguments (pygls reads the
arguments with cattrs: :func:`register_command_args`), and the client-side command and
notification names the server sends. A leaf module: the commands (lsp/commands.py,
lsp/profile.py, lsp/assembly.py) and the views that name them in code lenses
(lsp/kernel_views.py) import it, it imports none of them."""

from __future__ import annotations

import json

import attrs

BUILD, RUN, REPORT, DOCTOR, CANCEL = ("offload-ls.build", "offload-ls.run", "offload-ls.showRunReport",
                                      "offload-ls.doctor", "offload-ls.cancel")
RUN_OUTPUT = "offload-ls/runOutput"


@attrs.define
class BuildArgs:
    """Arguments of ``offload-ls.build``: a document or crate URI; images; bundle dir."""

    uri: str
    deviceImage: str | None = None
    bundle: str | None = None


@attrs.define
class RunArgs:
    """Arguments of ``offload-ls.run``: a URI, program arguments, OpenMP device, images, and
    the run target's name (default: the ``runTarget`` setting, then Cargo.toml's)."""

    uri: str
    args: list[str] = attrs.field(factory=list)
    device: int | None = None
    deviceImage: str | None = None
    target: str | None = None


@attrs.define
class UriArgs:
    uri: str


def register_command_args(converter) -> None:
    """Teach the server's cattrs ``converter`` to read the commands' arguments leniently
    and to say what it expects: a bare URI string is ``{"uri": ..}``; anything else but an
    object with a string ``uri`` raises ``TypeError`` naming the expected shape (pygls
    returns it as the request's error)."""
    for cls in (BuildArgs, RunArgs, UriArgs, AssemblyArgs, ProfileArgs):
        fields = ", ".join(f'"{a.name}"' for a in attrs.fields(cls))

        def hook(value, _type, cls=cls, fields=fields):
            if isinstance(value, str):
                value = {"uri": value}
            uri = value.get("uri") if isinstance(value, dict) else None
            if not isinstance(uri, str) or ":" not in uri:  # a URI has a scheme: `file:///..`
                raise TypeError(f"expected one argument, an object {{{fields}}} with \"uri\" a file or "
                                f"crate URI (file:///..), got {json.dumps(value)[:200]}")
            unknown = sorted(set(value) - {a.name for a in attrs.fields(cls)})
            if unknown:
                raise TypeError(f"unknown argument field(s) {', '.join(unknown)}; expected {{{fields}}}")
            try:
                return cls(**value)
            except TypeError as exc:
                raise TypeError(f"bad arguments {json.dumps(value)[:200]}: {exc}; expected {{{fields}}}") from None

        converter.register_structure_hook(cls, hook)


PROFILE = "offload-ls.profile"


@attrs.define
class ProfileArgs:
    """Arguments of ``offload-ls.profile``: a document or crate URI, program arguments, the
    OpenMP device, the images to embed."""

    uri: str
    args: list[str] = attrs.field(factory=list)
    device: int | None = None
    deviceImage: str | None = None


ASSEMBLY = "offload-ls.assembly"
SHOW_ASSEMBLY = "offload-ls.showAssembly"  # the client's command (VS Code, Neovim plugins)
FORMATS = ("ptx", "amdgcn", "llvm-ir", "sass")


@attrs.define
class AssemblyArgs:
    """Arguments of ``offload-ls.assembly``: a document URI, the kernel, the listing format
    (default: the device's assembly, ``ptx`` or ``amdgcn``)."""

    uri: str
    kernel: str | None = None
    format: str | None = None

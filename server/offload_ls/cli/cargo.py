"""``cargo offload``: the cargo subcommand spelling of the ``offload-ls`` CLI.

Cargo runs an external subcommand ``cargo offload ARGS`` as ``cargo-offload offload ARGS``
(the Cargo Book, "Custom subcommands"), so this entry point drops that first ``offload``
and runs ``offload-ls ARGS`` on the crate of the current directory by default:

    cargo offload check [PATH...] [--manifest-path Cargo.toml] [offload-ls check options]
    cargo offload build|run|profile [--manifest-path Cargo.toml] [options] [-- program args]
    cargo offload asm [--manifest-path Cargo.toml] [--kernel NAME] [--format ptx|llvm-ir|sass]
    cargo offload doctor

``--manifest-path FILE`` (cargo's spelling) names the crate as ``offload-ls`` does: the
manifest's directory for ``check``, the manifest itself for the others.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from offload_ls.cli.main import build_parser
from offload_ls.cli.main import main as cli_main
from offload_ls.workspace.cargo import find_manifest

COMMANDS = ("check", "build", "run", "profile", "asm", "doctor", "rules")

USAGE = """\
usage: cargo offload COMMAND [ARGS]

GPU-kernel lints, builds and runs for the crate in the current directory (offload-ls).

commands:
  check    lint the crate's .rs files (offload-ls check)
  build    build the crate's offload binary (offload-ls build)
  run      build if stale and run it, with a report of launches and copies (offload-ls run)
  profile  run it and profile the kernels: Nsight Compute figures with a GPU (offload-ls profile)
  asm      a kernel's PTX / LLVM IR / SASS with source lines (offload-ls asm)
  doctor   show what the installed toolchains and GPUs can do (offload-ls doctor)
  rules    list the lint rules (offload-ls rules)

`cargo offload COMMAND --help` shows a command's options; --manifest-path FILE names
another crate. `offload-ls` is the same program without cargo.
"""


def _valued_options(command: str) -> frozenset[str]:
    """The options of ``offload-ls COMMAND`` that take a value, read from its parser
    (cli/main.py ``build_parser``)."""
    sub = next(a for a in build_parser()._subparsers._group_actions if a.dest == "command")
    return frozenset(flag for action in sub.choices[command]._actions if action.option_strings and action.nargs != 0
                     for flag in action.option_strings)


def _has_paths(check_args: list[str], command: str = "check") -> bool:
    """Do ``offload-ls COMMAND`` arguments name a PATH (a positional argument)?"""
    valued = _valued_options(command)
    skip = False
    for a in check_args:
        if skip:
            skip = False
        elif a in valued:
            skip = True
        elif not a.startswith("-"):
            return True
    return False


def translate(args: Sequence[str], cwd: Path | None = None) -> list[str] | str:
    """``offload-ls`` arguments for ``cargo-offload`` arguments ``args`` (cargo's leading
    ``offload`` included or not), run in ``cwd`` (default: the current directory); a
    message (str) when they cannot run: an unknown command, a ``--manifest-path`` that is
    not an existing ``Cargo.toml`` (or given twice, or without a value), no ``Cargo.toml``
    at or above ``cwd`` (cargo's own errors, in its words where it has them).

    Without ``--manifest-path`` and without a PATH, ``check`` lints the crate of the
    nearest ``Cargo.toml`` at or above ``cwd``; the other crate commands get its manifest."""
    rest = list(args)
    if rest[:1] == ["offload"]:
        rest = rest[1:]
    if not rest or rest[0] in ("-h", "--help", "help"):
        return []
    if rest[0] in ("-V", "--version"):
        return ["--version"]
    command, rest = rest[0], rest[1:]
    if command not in COMMANDS:
        return f"cargo offload: no command `{command}`; commands: {', '.join(COMMANDS)}"
    program: list[str] = []
    if command in ("run", "profile") and "--" in rest:
        cut = rest.index("--")
        rest, program = rest[:cut], rest[cut:]
    split = _take_manifest_path(rest)
    if isinstance(split, str):
        return split
    out, manifest = split
    if command in ("doctor", "rules"):
        if manifest is not None:
            return f"cargo offload: `{command}` takes no --manifest-path"
        return [command, *out, *program]
    manifest, error = _resolve_manifest(manifest, out, command, cwd)
    if error is not None:
        return error
    if manifest is not None:
        out.append(str(Path(manifest).parent) if command == "check" else manifest)
    return [command, *out, *program]


def _take_manifest_path(rest: list[str]) -> tuple[list[str], str | None] | str:
    """``(the other arguments, the --manifest-path value or None)``, or a message (str) when
    it is given twice or without a value."""
    out: list[str] = []
    manifest: str | None = None
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--manifest-path" or a.startswith("--manifest-path="):
            value = a.split("=", 1)[1] if "=" in a else (rest[i + 1] if i + 1 < len(rest) else None)
            i += 1 if "=" in a else 2
            if not value:
                return "cargo offload: --manifest-path needs a value: the path to a Cargo.toml"
            if manifest is not None:
                return "cargo offload: --manifest-path given twice"
            manifest = value
            continue
        out.append(a)
        i += 1
    return out, manifest


def _resolve_manifest(manifest: str | None, out: list[str], command: str,
                      cwd: Path | None) -> tuple[str | None, str | None]:
    """``(the manifest to pass or None, None)``, or ``(None, a message)`` when the given
    manifest is not an existing Cargo.toml or none is found at or above ``cwd``."""
    if manifest is not None:
        path = Path(manifest)
        if path.name != "Cargo.toml":
            return None, f"cargo offload: the manifest-path must be a path to a Cargo.toml file: `{manifest}`"
        if not path.is_file():
            return None, f"cargo offload: manifest path `{manifest}` does not exist"
    elif _has_paths(out, command):
        pass  # `cargo offload check FILE_OR_DIR ..` / `cargo offload asm DIR`: the paths given
    else:
        here = Path(cwd) if cwd is not None else Path.cwd()
        found = find_manifest(here)
        if found is None:
            return None, f"cargo offload: could not find `Cargo.toml` in `{here}` or any parent directory"
        manifest = str(found)
    return manifest, None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``cargo-offload``; returns the exit status of the ``offload-ls``
    command it runs (2 for an unknown command, 0 for the usage text)."""
    args = translate(sys.argv[1:] if argv is None else argv)
    if isinstance(args, str):
        print(args, file=sys.stderr)
        return 2
    if not args:
        print(USAGE, end="")
        return 0
    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())

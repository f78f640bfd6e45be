"""``cargo offload``: the cargo subcommand spelling of the ``offload-ls`` CLI.

Cargo runs an external subcommand ``cargo offload ARGS`` as ``cargo-offload offload ARGS``
(the Cargo Book, "Custom subcommands"), so this entry point drops that first ``offload``
and runs ``offload-ls ARGS`` on the crate of the current directory by default:

    cargo offload check [PATH...] [--manifest-path Cargo.toml] [offload-ls check options]
    cargo offload build|run [--manifest-path Cargo.toml] [options] [-- program args]
    cargo offload doctor

``--manifest-path FILE`` (cargo's spelling) names the crate as ``offload-ls`` does: the
manifest's directory for ``check``, the manifest itself for ``build`` and ``run``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from offload_ls.cli.main import main as cli_main

COMMANDS = ("check", "build", "run", "doctor", "rules")

USAGE = """\
usage: cargo offload COMMAND [ARGS]

GPU-kernel lints, builds and runs for the crate in the current directory (offload-ls).

commands:
  check    lint the crate's .rs files (offload-ls check)
  build    build the crate's offload binary (offload-ls build)
  run      build if stale and run it, with a report of launches and copies (offload-ls run)
  doctor   show what the installed toolchains and GPUs can do (offload-ls doctor)
  rules    list the lint rules (offload-ls rules)

`cargo offload COMMAND --help` shows a command's options; --manifest-path FILE names
another crate. `offload-ls` is the same program without cargo.
"""


def translate(args: Sequence[str]) -> list[str] | str:
    """``offload-ls`` arguments for ``cargo-offload`` arguments ``args`` (cargo's leading
    ``offload`` included or not); a message (str) for a command that does not exist.

    Raises nothing; argparse reports bad options of the command itself."""
    rest = list(args)
    if rest[:1] == ["offload"]:
        rest = rest[1:]
    if not rest or rest[0] in ("-h", "--help", "help"):
        return []
    command, rest = rest[0], rest[1:]
    if command not in COMMANDS:
        hint = " (profiling is not part of this offload-ls version)" if command == "profile" else ""
        return f"cargo offload: no command `{command}`{hint}; commands: {', '.join(COMMANDS)}"
    program: list[str] = []
    if command == "run" and "--" in rest:
        cut = rest.index("--")
        rest, program = rest[:cut], rest[cut:]
    out: list[str] = []
    manifest: str | None = None
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--manifest-path" and i + 1 < len(rest):
            manifest = rest[i + 1]
            i += 2
            continue
        if a.startswith("--manifest-path="):
            manifest = a.split("=", 1)[1]
            i += 1
            continue
        out.append(a)
        i += 1
    if manifest is not None:
        if command == "check":
            out.append(str(Path(manifest).parent) if Path(manifest).name == "Cargo.toml" else manifest)
        elif command in ("build", "run"):
            out.append(manifest)
    return [command, *out, *program]


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

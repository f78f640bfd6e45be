"""``offload-ls`` command line (argparse).

Commands:

- ``offload-ls`` / ``offload-ls serve [--stdio]``: the language server over stdin/stdout
  (``--stdio``, which editors' clients append, is accepted and changes nothing).
- ``offload-ls check PATH... [--format text|json|sarif] [--output FILE]
  [--deny RULE] [--warn RULE] [--allow RULE] [--max-file-bytes N]``: lint files for CI and
  pre-commit (see :mod:`offload_ls.cli.check`).
- ``offload-ls rules [--format text|json]``: every rule with its default level and summary.
- ``offload-ls doctor|build|run|profile|asm``: the toolchain and GPU commands of
  :mod:`offload_ls.cli.toolchain_cmds` and :mod:`offload_ls.cli.inspect_cmds` (registered
  when those modules import).
- ``offload-ls --version``.

Exit status: 0 success; 1 ``check`` printed a ``deny``-level finding; 2 usage error, a path
that cannot be read, a failed analysis, or the server cannot start.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from offload_ls import __version__
from offload_ls.analysis.model import Level
from offload_ls.cli.check import (
    DEFAULT_MAX_FILE_BYTES,
    EXIT_ERROR,
    EXIT_OK,
    _write,
    check_paths,
)

PROG = "offload-ls"


def _rule_name(value: str) -> str:
    """argparse ``type`` for ``--deny/--warn/--allow``: a known rule name."""
    from offload_ls.analysis.rules import all_rules

    known = all_rules()
    if value not in known:
        raise argparse.ArgumentTypeError(f"unknown rule `{value}` (known rules: {', '.join(known)})")
    return value


def _positive_int(value: str) -> int:
    try:
        n = int(value, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {n}")
    return n


class _LevelAction(argparse.Action):
    """Append ``(rule, level)`` to one list so that the last flag for a rule wins,
    whatever its kind (like clippy's ``-D``/``-W``/``-A``)."""

    def __init__(self, *args, level: Level, **kwargs) -> None:
        self.level = level
        super().__init__(*args, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        current = list(getattr(namespace, self.dest, None) or [])
        current.append((values, self.level))
        setattr(namespace, self.dest, current)


def build_parser() -> argparse.ArgumentParser:
    """The ``offload-ls`` argument parser (subcommands ``serve``, ``check``, ``rules``)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Language server and linter for GPU kernels written in Rust "
                    "(rustc -Zoffload, Rust-CUDA, rust-gpu, CubeCL). "
                    "Without a command, runs the language server over stdio.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--stdio", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the language server over stdio (the default)",
                           description="Run the language server, speaking LSP over stdin/stdout.")
    serve.add_argument("--stdio", action="store_true",
                       help="accepted for editors that pass it; stdio is the only transport")

    check = sub.add_parser(
        "check", help="lint .rs files and report findings",
        description="Lint Rust files: each PATH is a .rs file or a directory (every .rs file "
                    "below it, skipping target/). Rule levels: defaults < Cargo.toml "
                    "[package|workspace.metadata.offload-ls] < --warn/--deny/--allow. "
                    "Exit status 1 when a deny-level finding exists, 2 on errors.",
    )
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                       help=".rs file, crate or directory (default: the current directory)")
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                       help="output format (default: text)")
    check.add_argument("-o", "--output", metavar="FILE",
                       help="write the report to FILE instead of standard output")
    for flags, level, what in ((("-D", "--deny"), Level.DENY, "an error (exit status 1)"),
                               (("-W", "--warn"), Level.WARN, "a warning"),
                               (("-A", "--allow"), Level.ALLOW, "off")):
        check.add_argument(*flags, dest="levels", metavar="RULE", type=_rule_name, action=_LevelAction,
                           level=level, default=[],
                           help=f"make RULE {what}; repeatable, the last flag for a rule wins")
    check.add_argument("--max-file-bytes", type=_positive_int, default=DEFAULT_MAX_FILE_BYTES, metavar="N",
                       help=f"skip files larger than N bytes (default: {DEFAULT_MAX_FILE_BYTES})")
    check.add_argument("--compile", action="store_true",
                       help="also run the offload compile (device pass, host pass, transfer plan) of each "
                            "crate and merge the compiler's findings, labelled by pass; runs build scripts")
    check.add_argument("--transfer-plan", action="store_true",
                       help="with --compile (implied): after the findings, print what each kernel's launch "
                            "copies according to the compiled host code (text format)")
    check.add_argument("-v", "--verbose", action="store_true",
                       help="show tracebacks when the analysis of a file fails")

    rules = sub.add_parser("rules", help="list the lint rules",
                           description="List every rule with its default level and summary.")
    rules.add_argument("--format", choices=("text", "json"), default="text",
                       help="output format (default: text)")

    for add, _ in (_toolchain_commands() or {}).values():
        add(sub)
    return parser


def _toolchain_commands() -> dict | None:
    """Command name -> (register on the parser, run) of the toolchain and GPU commands
    (:mod:`offload_ls.cli.toolchain_cmds`, :mod:`offload_ls.cli.inspect_cmds`), or ``None``
    if they cannot be imported (then they are absent and the lint commands still work)."""
    try:
        from offload_ls.cli import inspect_cmds, toolchain_cmds
    except ImportError:
        return None
    return {"doctor": (toolchain_cmds.add_doctor, toolchain_cmds.doctor_command),
            "build": (toolchain_cmds.add_build, toolchain_cmds.build_command),
            "run": (toolchain_cmds.add_run, toolchain_cmds.run_command),
            "profile": (inspect_cmds.add_profile, inspect_cmds.profile_command),
            "asm": (inspect_cmds.add_asm, inspect_cmds.asm_command)}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    argparse's own exits (``--help``, ``--version``, usage errors) are returned as statuses
    rather than raised, so callers and tests can run it in-process.
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    program_args: list[str] = []
    if argv[:1] in (["run"], ["profile"]) and "--" in argv:
        # Everything after `--` goes to the program; options before it are ours wherever
        # they stand (`run PATH --timeout 3 -- ARGS`).
        cut = argv.index("--")
        argv, program_args = argv[:cut], argv[cut + 1:]
    try:
        args = parser.parse_args(argv)
        if getattr(args, "command", None) in ("run", "profile"):
            args.program_args = program_args
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (EXIT_OK if exc.code is None else EXIT_ERROR)
    if args.command in (None, "serve"):
        return serve()
    if args.command == "rules":
        return rules_command(args.format)
    if args.command == "check":
        return check_command(args)
    toolchain = _toolchain_commands()
    assert toolchain is not None  # the parser only knows these commands when it imported
    command = toolchain[args.command][1]
    # SIGTERM (timeout(1), CI, process managers) stops a build or run like Ctrl-C: the running
    # compiler or program's process group is killed on the way out (toolchain/process.py).
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return command(args)
    except BrokenPipeError:
        # `offload-ls asm | head`: the reader left; no traceback, no second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve() -> int:
    """Start the language server over stdio; returns 2 if it cannot be imported."""
    try:
        from offload_ls.lsp.server import serve_stdio
    except ImportError as exc:
        _write(sys.stderr, f"{PROG}: error: the language server is not available ({exc}); "
                           f"`{PROG} check` and `{PROG} rules` still work\n")
        return EXIT_ERROR
    serve_stdio()
    return EXIT_OK


def rules_command(fmt: str) -> int:
    """Print every rule (name, default level, summary) as an aligned table or JSON."""
    from offload_ls.analysis.rules import all_rules
    from offload_ls.resources import rule_doc_path

    rules = all_rules()
    if fmt == "json":
        items = []
        for name, rule in rules.items():
            try:
                doc: str | None = rule_doc_path(name).as_uri()
            except FileNotFoundError:
                doc = None
            items.append({"name": name, "default_level": rule.default_level.value,
                          "summary": rule.summary, "doc": doc})
        _write(sys.stdout, json.dumps(items, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    width = max((len(n) for n in rules), default=4)
    lines = [f"{'RULE':<{width}}  {'DEFAULT':<7}  SUMMARY"]
    lines += [f"{name:<{width}}  {rule.default_level.value:<7}  {rule.summary}" for name, rule in rules.items()]
    _write(sys.stdout, "\n".join(lines) + "\n")
    return EXIT_OK


def _transfer_plan_text(result) -> str:
    """The ``--transfer-plan`` section: per crate, one line per kernel (parameter names and
    types from the checked files' kernel declarations)."""
    from offload_ls.analysis.engine import analyze_source
    from offload_ls.toolchain.transfer_plan import render_kernel_plan

    if not result.transfer_plans:
        return "\ntransfer plan: none (no kernel launch was compiled; see the notices above)\n"
    out = []
    for crate, (name, plans) in result.transfer_plans.items():
        params: dict[str, list[tuple[str, str]]] = {}  # this crate's kernels only
        for fr in result.files:
            if Path(fr.file.absolute).resolve().is_relative_to(crate):
                for k in analyze_source(fr.source).kernels:
                    params.setdefault(k.name, [(p.name, p.type_text) for p in k.params])
        out.append(f"\ntransfer plan of {name} (compiled host code, per launch):")
        # `scale__f32`: the lowering's entry for `scale::<f32>` (toolchain/lower_emit.py)
        for kname, kt in sorted(plans.items()):
            # `kernels__a__add1`: module-qualified (toolchain/lower.py)
            known = params.get(kname) or params.get(kname.split("__")[0]) or params.get(kname.split("__")[-1], ())
            out.append(f"  {render_kernel_plan(kt, known)}")
    return "\n".join(out) + "\n"


def check_command(args: argparse.Namespace) -> int:
    """``check``: analyse, render in the chosen format, write to stdout or ``--output``."""
    from offload_ls.cli.formats import renderer

    overrides = dict(args.levels)  # later flags for the same rule win
    if args.output not in (None, "-"):
        out = Path(args.output).resolve()
        inputs = {Path(p).resolve() for p in args.paths}
        if out.suffix == ".rs" or out in inputs or any(i in out.parents for i in inputs if i.is_file()):
            _write(sys.stderr, f"{PROG}: error: --output {args.output} would overwrite a source file; "
                               f"choose a report file such as offload-ls.json\n")
            return EXIT_ERROR
    if args.transfer_plan and args.format != "text":
        _write(sys.stderr, f"{PROG}: error: --transfer-plan is printed in the text format only\n")
        return EXIT_ERROR
    compile_too = args.compile or args.transfer_plan
    result = check_paths(args.paths, overrides, max_file_bytes=args.max_file_bytes, verbose=args.verbose,
                         keep_analyses=compile_too)
    if compile_too:
        from offload_ls.cli.compile_merge import merge_compiler_findings

        def report(notice):
            result.notices.append(notice)
            _write(sys.stderr, notice.line() + "\n")
        merge_compiler_findings(result, report, max_file_bytes=args.max_file_bytes)
    text = renderer(args.format)(result)
    if args.transfer_plan:
        text += _transfer_plan_text(result)
    status = result.exit_status
    if args.output in (None, "-"):
        _write(sys.stdout, text)
        return status
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        _write(sys.stderr, f"{PROG}: error: {args.output}: {exc.strerror or exc}\n")
        return EXIT_ERROR
    return status


if __name__ == "__main__":  # pragma: no cover - `python -m offload_ls` is the supported way
    raise SystemExit(main())

"""The settings schema: the one place that defines every offload-ls setting.

The LSP client sends them as ``initializationOptions`` and in ``workspace/configuration``
/ ``didChangeConfiguration`` under the section ``offload-ls``, camelCase as in VS Code's
``contributes.configuration``. Rule levels may also come from Cargo.toml
(``[workspace.metadata.offload-ls]``, then ``[package.metadata.offload-ls]``); precedence,
lowest first: rule default < workspace metadata < package metadata < editor settings.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import attrs
import cattrs

from offload_ls.analysis.model import Level
from offload_ls.workspace.files import within
from offload_ls.workspace.rule_levels import parse_rule_levels

log = logging.getLogger(__name__)

SECTION = "offload-ls"


@attrs.frozen
class Settings:
    """offload-ls settings (field names are the camelCase keys clients send). Immutable: a
    change of settings is a new object (``attrs.evolve``), so a snapshot holding one keeps it.

    Attributes:
        rules: rule name -> ``"allow"`` / ``"warn"`` / ``"deny"``.
        debounceMs: delay in milliseconds between an edit of a document and its
            re-analysis. 0 (the default): analyse as soon as the edit arrives when the
            document's worker is idle; edits that arrive while an analysis runs are
            coalesced into one analysis of the newest text, and the superseded result is
            never published.
        scanWorkspace: analyse the workspace's ``.rs`` files that are not open (and watch
            them), so findings in unopened files reach the client.
        maxFileBytes: files larger than this (bytes) are not analysed; a log line says so.
        trustedWorkspaces: folders (absolute paths) whose crates offload-ls may compile and
            run — compiling runs build scripts and proc macros. ``"*"`` trusts every
            folder. Lints work untrusted. (The VS Code extension maps VS Code's workspace
            trust onto this.)
        checkOnSave: run the offload check (device pass + host pass) when a ``.rs`` file
            of a trusted crate is saved or changes on disk.
        transferPlan: after a clean check, also compile the host pass to LLVM IR to read
            the transfer plan (inlay hints at launches; a few seconds per save).
        rustc / cargo: toolchain to use (default: what ``offload-ls doctor`` chooses).
        gpuTarget: device-pass target triple; gpuArch: e.g. ``sm_90`` / ``gfx90a``
            (default: the detected GPU's, else ``sm_90``).
        device: OpenMP device number for runs (default: the runtime's first).
        deviceImage: ``gpu`` / ``host`` / ``both`` for builds (default: ``gpu`` with a GPU,
            else ``host``).
        compileTimeoutS / runTimeoutS: seconds before a compile pass / a run is killed.
        runTarget: the run target "Run on GPU" uses: ``local``, or the name of a table of
            ``runTargets`` or of Cargo.toml's ``[package.metadata.offload-ls.run-targets]``
            (default: Cargo.toml's ``run-target``, else ``local``; docs/remote.md).
        runTargets: name -> target table (``kind`` ``ssh``/``slurm``, ``host``, ``workDir``,
            ``partition``, ``gpus``, ...), validated when used (gpu/targets.py); they
            override Cargo.toml's tables of the same name.
    """

    rules: dict[str, Level] = attrs.field(factory=dict)
    debounceMs: int = attrs.field(default=0, validator=attrs.validators.ge(0))
    scanWorkspace: bool = True
    maxFileBytes: int = attrs.field(default=8 * 1024 * 1024, validator=attrs.validators.gt(0))
    trustedWorkspaces: list[str] = attrs.field(factory=list)
    checkOnSave: bool = True
    transferPlan: bool = True
    rustc: str | None = None
    cargo: str | None = None
    gpuTarget: str = attrs.field(default="nvptx64-nvidia-cuda", validator=attrs.validators.in_(
        ("nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa")))
    gpuArch: str | None = None
    device: int | None = None
    deviceImage: str | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.in_(("gpu", "host", "both"))))
    compileTimeoutS: float = attrs.field(default=300.0, validator=attrs.validators.gt(0))
    runTimeoutS: float = attrs.field(default=300.0, validator=attrs.validators.gt(0))
    runTarget: str | None = None
    runTargets: dict[str, dict] = attrs.field(factory=dict)

    def trusts(self, path) -> bool:
        """True if ``path`` (a crate directory or file) lies in a trusted workspace folder."""
        if "*" in self.trustedWorkspaces:
            return True
        for folder in self.trustedWorkspaces:
            try:
                root = Path(folder).expanduser()
            except RuntimeError:  # "~user" of an unknown user
                continue
            if within(Path(path), root):
                return True
        return False


attrs.resolve_types(Settings)
_converter = cattrs.Converter(forbid_extra_keys=False)


def parse_settings(raw: Any, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Build :class:`Settings` from a client's JSON value.

    Args:
        raw: a dict (possibly ``{"offload-ls": {...}}``), or ``None``.
        base: values for keys that ``raw`` does not give (default: built-in defaults).

    Returns:
        (settings, problems): invalid entries are skipped, each with a problem message, so
        one bad value never discards the rest.
    """
    settings = attrs.evolve(base) if base is not None else Settings()
    problems: list[str] = []
    if raw is None:
        return settings, problems
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        raw = raw[SECTION]
    if not isinstance(raw, dict):
        return settings, [f"offload-ls settings must be an object, got {type(raw).__name__}"]
    fields = attrs.fields_dict(Settings)
    for key, value in raw.items():
        if key not in fields:
            continue  # other sections/keys are none of our business
        if key == "rules":
            rules, rule_problems = parse_rule_levels(value, f"{SECTION}.rules")
            problems += rule_problems
            settings = attrs.evolve(settings, rules={**settings.rules, **rules})
            continue
        wrong = _json_type_problem(value, fields[key].type)
        if wrong:
            problems.append(f"{SECTION}.{key}: invalid value {value!r} ({wrong})")
            continue
        try:
            converted = _converter.structure(value, fields[key].type)
            candidate = attrs.evolve(settings, **{key: converted})
        except Exception as exc:  # noqa: BLE001 - report and keep the old value
            why = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
            problems.append(f"{SECTION}.{key}: invalid value {value!r} ({why})")
            continue
        settings = candidate
    return settings, problems


def _json_type_problem(value: Any, annotation: Any) -> str | None:
    """Why ``value`` (decoded JSON) does not have the field's JSON type, or ``None``.

    Stricter than cattrs, which would turn ``"x"`` into ``["x"]``, ``"false"`` into
    ``True`` or ``1.5`` into ``1``: a setting that decides what may be compiled must mean
    exactly what the user wrote.
    """
    import types
    import typing

    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _json_type_problem(value, inner[0]) if len(inner) == 1 else None
    if origin is list:
        if not isinstance(value, list):
            return f"expected a list, got {type(value).__name__}"
        if args and args[0] is str and not all(isinstance(v, str) for v in value):
            return "expected a list of strings"
        return None
    if annotation is bool:
        return None if isinstance(value, bool) else f"expected true or false, got {type(value).__name__}"
    if annotation is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else \
            f"expected an integer, got {type(value).__name__}"
    if annotation is float:
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else \
            f"expected a number, got {type(value).__name__}"
    if annotation is str:
        return None if isinstance(value, str) else f"expected a string, got {type(value).__name__}"
    return None

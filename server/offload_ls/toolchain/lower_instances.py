"""Which instantiations of each upstream kernel the lowered copy builds (toolchain/lower.py):
one per distinct set of generic arguments its ``offload!`` launches name (``k::<f32>`` ->
entry ``k__f32``), one named as the kernel for a non-generic kernel, with module-qualified
symbols where two modules' entries share a name."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.toolchain.lower_checks import IssueSink, LoweringIssue, check_launch, int_value
from offload_ls.toolchain.lower_emit import Inst, ascii_ident, mangle
from offload_ls.toolchain.lower_scan import ScannedFile, ScannedKernel, ScannedLaunch


@dataclass
class Instances:
    """The instantiations of a crate's kernels.

    Attributes:
        kernel_insts: ``id(kernel)`` -> its instantiations. launch_insts: ``id(launch)`` -> the
        instantiation it launches (absent: the launch has an error or is a 1.96-style one).
        aliases: (file, end byte of the launch's module) -> alias items emitted there, as
        (text, origin start, origin end) with the origin on the launch's ``kernel = ..``.
    """

    kernel_insts: dict[int, list[Inst]]
    launch_insts: dict[int, Inst] = field(default_factory=dict)
    aliases: dict[tuple[Path, int], list[tuple[str, int, int]]] = field(default_factory=dict)


def instantiate(files: list[ScannedFile], kernels: list[ScannedKernel], legacy: set[str],
                issue: IssueSink) -> Instances:
    """Check every launch (:func:`check_launch`), collect the instantiations the launches ask
    for, and warn on a generic kernel no launch instantiates."""
    found = Instances({id(k): [] for k in kernels})
    insts = found.kernel_insts
    for f in files:
        for launch in f.launches:
            k = check_launch(f, launch, kernels, legacy, issue)
            if k is not None:
                found.launch_insts[id(launch)] = _instance(k, launch, insts[id(k)], found.aliases)
    for k in kernels:
        if k.generics and not insts[id(k)]:
            nn = k.fn.child_by_field_name("name")
            issue(LoweringIssue(k.file, nn.start_byte, nn.end_byte, "warning",
                                f"generic kernel `{k.name}` is never instantiated: no `offload!` launches "
                                f"`{k.name}::<..>`, so no device code is built for it"))
        elif not k.generics and not insts[id(k)]:
            insts[id(k)].append(Inst(k, [], ascii_ident(k.name), ascii_ident(k.name)))
    _unique_symbols([i for k in kernels for i in insts[id(k)]])
    return found


_PRIMITIVES = frozenset({"f16", "f32", "f64", "f128", "bool", "char", "usize", "isize", "u8", "u16", "u32",
                         "u64", "u128", "i8", "i16", "i32", "i64", "i128"})


def _instance(k: ScannedKernel, launch: ScannedLaunch, known: list[Inst],
              aliases: dict[tuple[Path, int], list[tuple[str, int, int]]]) -> Inst:
    """The instantiation ``launch`` asks for (a new one when its generic arguments are new).
    Generic arguments are written at the launch (``scale::<Real>`` with ``type Real = f64`` in
    the launch's module), so they reach the kernel's module through aliases emitted beside the
    launch: ``crate::<launch module>::__offload_ls_<entry>_<i>``."""
    args = launch.type_args
    portable = all(a in _PRIMITIVES or (is_const and int_value(a) is not None)
                   for (_, is_const, _), a in zip(k.generics, args))
    scope = () if portable else launch.module  # `C` in module `single` is not `C` in `double`
    for inst in known:
        if inst.args == args and inst.scope == scope:
            return inst
    entry = ascii_ident(k.name) if not args else f"{ascii_ident(k.name)}__{mangle([*scope, *args])}"
    inst = Inst(k, list(args), entry, entry, scope=scope)
    where = "crate::" + "".join(m + "::" for m in launch.module)
    ks, ke = launch.values["kernel"]  # errors in an alias land on the launch's `kernel = ..`
    for n, ((name, is_const, ty), arg) in enumerate(zip(k.generics, args)):
        item = f"__offload_ls_{entry}_{n}"
        if arg in _PRIMITIVES or (is_const and int_value(arg) is not None):
            inst.subst[name] = arg  # means the same in every module: no alias needed
        elif is_const:
            aliases.setdefault((launch.file, launch.container_end), []).append(
                (f"\n#[doc(hidden)] #[allow(non_upper_case_globals, unused_braces)] pub const {item}: {ty} = {arg};\n",
                 ks, ke))
            inst.subst[name] = f"{{ {where}{item} }}"
        else:
            aliases.setdefault((launch.file, launch.container_end), []).append(
                (f"\n#[doc(hidden)] #[allow(non_camel_case_types)] pub type {item} = {arg};\n", ks, ke))
            inst.subst[name] = where + item
    known.append(inst)
    return inst


def _unique_symbols(insts: list[Inst]) -> None:
    """Entries with the same name in different modules get module-qualified symbols."""
    count: dict[str, int] = {}
    for inst in insts:
        count[inst.entry] = count.get(inst.entry, 0) + 1
    for inst in insts:
        if count[inst.entry] > 1:
            inst.symbol = "__".join((*(ascii_ident(m) for m in inst.kernel.module), inst.entry))

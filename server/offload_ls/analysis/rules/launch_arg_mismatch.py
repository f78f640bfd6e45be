"""launch_arg_mismatch: a launch's arguments do not fit the kernel it names.

Checked against the kernel (found in the file or its crate, analysis/crate_index.py):

- the number of arguments: ``offload!`` / ``core::intrinsics::offload``, cuda-oxide
  ``cuda_launch!`` and CubeCL ``k::launch`` pass one argument per parameter (CubeCL adds
  up to one per generic parameter and one for ``address_type = "dynamic"``); Rust-CUDA
  ``launch!`` passes a slice parameter (``&[f32]``) as two (device pointer and length);
  krnl's ``dispatch`` leaves out ``#[group]`` memory;
- the reference kind (std offload): ``&x`` for a ``&mut`` parameter, a value for a
  reference, a reference for a value (``&mut x`` for ``&T`` is a reborrow, not reported);
  krnl: an immutable ``x.as_slice()`` for a ``#[global]`` ``UnsafeSlice`` or ``#[item] y:
  &mut T`` (which need ``as_slice_mut()``);
- the numeric type of a literal (``0.25f64``, or ``2`` for a float) or of a variable whose
  type is written (``let a: f64``, ``fn wrap(b: f64)``) for a scalar parameter (or
  ``&f32``), type aliases followed (``type Real = f32``). Generic parameters are not
  checked.

rustc rejects these in today's offload (tests/ui/offload/type_mismatch.rs: "offload
kernel expects 1 arguments, but 0 arguments were provided", "type mismatch in offload
kernel argument 0: expected `f32`, found `f64`"); rustc 1.96's four-argument intrinsic
does not check them, and Rust-CUDA / cuda-oxide launches check nothing at compile time.
"""

from __future__ import annotations

from collections.abc import Iterator

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.launch_args import ArgInfo, arg_info, fits, reparse
from offload_ls.analysis.model import Ecosystem, Finding, Kernel, Launch, LaunchForm, Level, Param, Transfer
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.transfer import is_slice_type

NAME = "launch_arg_mismatch"

#: Forms whose arguments are macro token text (re-parsed) rather than tree nodes.
_MACRO_FORMS = frozenset({LaunchForm.OFFLOAD_MACRO, LaunchForm.RUST_CUDA, LaunchForm.CUDA_OXIDE})


def check(ctx: FileContext) -> Iterator[Finding]:
    for launch in ctx.launches:
        if not launch.kernel or launch.kernel_span is None or launch.form is LaunchForm.WGPU:
            continue
        if launch.form is LaunchForm.OFFLOAD_MACRO and not launch.has_args:
            continue  # malformed_offload_launch reports it
        if ctx.facts.kernel_is_ambiguous(launch.kernel):
            continue  # `a::add1` or `b::add1`: which parameters to compare with is not known
        kernel = ctx.facts.kernel_anywhere(launch.kernel) or (
            ctx.facts.function_anywhere(launch.kernel) if launch.form.offload else None)
        if kernel is None:
            continue  # unknown_launch_kernel reports it
        params = _expected(ctx, kernel, launch)
        if params is None:
            continue
        if launch.form.offload and _host_declared(ctx, launch.kernel):
            # rustc 1.96: the host pass launches the `extern` declaration; a declaration that
            # disagrees with the kernel is kernel_decl_mismatch's finding, not the launch's
            decl = _host_declared(ctx, launch.kernel)
            if len(decl.params) != len(launch.args):
                declared = [(_decl_param(p), 1) for p in decl.params if p is not None]
                yield _count_finding(launch, kernel, declared, len(decl.params), " (as its host declaration says)")
            elif all(p is not None for p in decl.params):
                yield from _arg_findings(ctx, launch, kernel, [(_decl_param(p), 1) for p in decl.params])
            continue
        count = sum(n for _, n in params)
        extra = _cubecl_extra_args(ctx, kernel)
        if extra:
            # CubeCL puts run-time arguments of its own before the parameters' (an
            # `AddressType` for `address_type = "dynamic"`, a size per `N: Size` generic):
            # how many is not known from the syntax, so only a count outside the range is
            # reported and the arguments are not paired with the parameters
            if not count <= len(launch.args) <= count + extra:
                yield _count_finding(launch, kernel, params, count,
                                     f" (plus up to {extra} of CubeCL's own: address type, vector sizes)")
            continue
        if count != len(launch.args):
            yield _count_finding(launch, kernel, params, count)
            continue
        yield from _arg_findings(ctx, launch, kernel, params)


def _cubecl_extra_args(ctx: FileContext, kernel: Kernel) -> int:
    """At most how many launch arguments CubeCL adds before a kernel's own: one for a
    ``#[cube(.., address_type = "dynamic")]`` kernel, one per generic parameter (a
    ``N: Size`` vector size is a run-time argument; a ``F: Float`` is not, but the
    bounds are not recorded). tracel-ai/cubecl runtime_tests/atomic.rs, burn-cubecl
    kernel/cross.rs."""
    if ctx.profile(kernel).ecosystem is not Ecosystem.CUBECL:
        return 0
    return int("address_type" in kernel.marker) + _runtime_generics(kernel)


#: CubeCL trait bounds of generic parameters that are fixed when the kernel is compiled
#: (element types, the runtime): no launch argument (cubecl-core's `Float`, `Numeric`, ..).
_COMPTIME_BOUNDS = frozenset({"Float", "Numeric", "Int", "CubePrimitive", "CubeType", "CubeElement", "Runtime",
                              "LaunchArg", "Scalar"})


def _runtime_generics(kernel: Kernel) -> int:
    """Generic type parameters of ``kernel`` that may be run-time launch arguments: those
    with no bound or a bound outside :data:`_COMPTIME_BOUNDS`."""
    return sum(1 for bounds in kernel.generic_bounds if not bounds or not set(bounds) <= _COMPTIME_BOUNDS)


def _host_declared(ctx: FileContext, name: str):
    """The host-side ``extern`` declaration of kernel ``name`` (file, then crate), if any."""
    found = ctx.facts.extern_decls_named(name)
    if not found and ctx.facts.crate is not None:
        found = ctx.facts.crate.externs.get(name, [])
    return found[0] if found else None


def _decl_param(p) -> Param:
    """A host declaration's parameter (analysis/units/ ``ExternParam``) as a Param."""
    pointee = None
    if p.kind in ("ref", "mut_ref"):
        pointee = p.type_text.strip().removeprefix("&").strip().removeprefix("mut ").strip()
    return Param(name="(declared)", type_text=p.type_text, span=p.type_span, type_span=p.type_span,
                 transfer=Transfer.UNKNOWN, kind=p.kind, pointee=pointee)


def _expected(ctx: FileContext, kernel: Kernel, launch: Launch) -> list[tuple[Param, int]] | None:
    """Each kernel parameter with the number of launch arguments it takes, in order;
    ``None`` for a launch form this rule does not check."""
    if launch.form is LaunchForm.WGPU:
        return None  # a pipeline's entry point, not a call with arguments
    prof = ctx.profile(kernel)
    shared = prof.shared_param_attrs  # block-shared memory is no launch argument (krnl #[group])
    return [(p, prof.args_per_slice if _is_slice(p) else 1) for p in kernel.params
            if not shared.intersection(p.attrs)]


def _is_slice(p: Param) -> bool:
    """``&[T]`` / ``&mut [T]``: a slice (tree-sitter's array type without a length;
    ``&[[f32; 4]]`` is a slice of arrays)."""
    return p.kind in ("ref", "mut_ref") and p.pointee is not None and is_slice_type(p.pointee)


def _count_finding(launch: Launch, kernel: Kernel, params: list[tuple[Param, int]], count: int,
                   source: str = "") -> Finding:
    listed = ", ".join(f"`{p.type_text}`" if p.name == "(declared)" else f"`{p.name}: {p.type_text}`"
                       for p, _ in params) or "none"
    extra = ""
    if any(n == 2 for _, n in params):
        extra = " (a slice parameter takes two: the device pointer and the length)"
    return Finding(
        rule=NAME, span=launch.kernel_span,  # type: ignore[arg-type]
        message=(f"this launch passes {len(launch.args)} argument{'s' if len(launch.args) != 1 else ''} "
                 f"to kernel `{kernel.name}`, which takes {count}{source}{extra}: {listed}"),
    )


def _arg_findings(ctx: FileContext, launch: Launch, kernel: Kernel,
                  params: list[tuple[Param, int]]) -> Iterator[Finding]:
    at = ctx.root.descendant_for_byte_range(launch.span.start, launch.span.start)
    lets = ctx.lets_at(launch.span.start)
    i = 0
    for p, n in params:
        if n != 1:
            i += n
            continue
        arg = launch.args[i]
        i += 1
        if launch.form in _MACRO_FORMS:
            tree, node = reparse(ctx.source, arg.span.start, arg.span.end)
            info = arg_info(node, at, ctx.profile(kernel), lets)
            del tree
        else:
            node = ctx.node(arg.span)
            info = arg_info(node, at, ctx.profile(kernel), lets)
        problem = _problem(ctx, kernel, launch, p, info)
        if problem is not None:
            whose = f"its host declaration's parameter is `{p.type_text}`" if p.name == "(declared)" else \
                f"the kernel's parameter is `{p.name}: {p.type_text}`"
            yield Finding(rule=NAME, span=arg.span,
                          message=f"argument {i} of this launch of `{kernel.name}` is {info.what}, "
                                  f"but {whose}: {problem}")


_NUMERIC = frozenset({"u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
                      "f16", "f32", "f64", "f128"})


def _problem(ctx: FileContext, kernel: Kernel, launch: Launch, p: Param, info: ArgInfo) -> str | None:
    if any(g in p.type_text.replace("<", " ").replace(">", " ").split() or p.type_text.strip("&mut ") == g
           for g in kernel.generics):
        return None
    prof = ctx.profile(kernel)
    if info.kind == "slice" and prof.slice_types:
        base = p.type_text.split("<", 1)[0].rsplit("::", 1)[-1].strip()
        if p.kind == "mut_ref" or prof.slice_types.get(base) == "slice_mut":
            fix = next((m for m, k in prof.slice_args.items() if k == "slice_mut"), "a mutable slice")
            return f"the kernel writes it, so it takes a mutable slice (`{fix}()`)"
    if launch.form.offload:
        if p.kind == "mut_ref" and info.kind in ("ref", "value"):
            return "the kernel writes through it, so it takes `&mut` (the runtime copies it back)"
        if p.kind == "ref" and info.kind == "value":
            return "pass a reference (`&value`)"
        if p.kind == "scalar" and info.kind in ("ref", "mut_ref"):
            return "the kernel takes the value itself, not a reference"
    if p.kind == "mut_ptr" and info.kind == "const_ptr" and kernel.ecosystem.runtime_maps_arguments:
        return ("the kernel writes through it, so the runtime must copy it back: pass a `*mut` pointer "
                "(a `*const` one here is often a swapped argument)")
    target = p.type_text if p.kind == "scalar" else p.pointee if p.kind in ("ref", "mut_ref") else None
    if target is None and p.kind == "other" and ctx.facts.resolve_type(p.type_text.strip()) in _NUMERIC:
        target = p.type_text  # `r: Real` with `type Real = f64;`: a scalar behind an alias
    if target is None:
        return None
    resolved = ctx.facts.resolve_type(target.strip())
    if not fits(info.scalar, resolved):
        if info.scalar in ("{integer}", "{float}"):
            found = "an integer" if info.scalar == "{integer}" else "a floating-point value"
        else:
            found = f"a value of type `{info.scalar or '?'}`"
        return f"{found} where the kernel expects `{resolved}`"
    return None


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="launch arguments do not fit the kernel: count, reference kind, or numeric type",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.EXTERNS, Fact.INDEX_HELPERS}),
    needs=Holds.LAUNCHES,
)

"""File-level facts, assembled from the per-unit summaries (analysis/units.py).

Each property is computed on first use only (a rule that is not run costs nothing) and
from the summaries alone: no tree access, no query. A summary may come from the cache,
made when its unit sat elsewhere in the file: ``starts[i] - summaries[i].start`` is the
number of bytes unit ``i`` has moved since, added to its offsets where they are used.
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis import shift
from offload_ls.analysis.consts import fold
from offload_ls.analysis.device_code import DeviceFn, device_graph
from offload_ls.analysis.ecosystems import Profile, profile, resolve_kernel_attr
from offload_ls.analysis.model import Ecosystem, Kernel, Launch, Span, Transfer
from offload_ls.analysis.std_names import HEAP_NAMES, HOST_ONLY_NAMES, STD_FLOAT_METHODS
from offload_ls.analysis.suppress import CommentRec
from offload_ls.analysis.units import ExternDecl, ExternParam, ItemFacts, UnitSummary

#: Where a unit's device functions are and why: (index of the function in the unit's
#: ``fns``, name, reason, index of the kernel in the unit's ``kernels`` or -1).
DeviceInfo = tuple[tuple[int, str, str, int], ...]


#: The position-free facts an analysis may take over from the previous one when every unit's
#: exports and the crate view are the same (analysis/engine.py's fast path).
CARRIED = ("semantic_core", "own_semantic_hash", "primary_ecosystem", "kernel_attr_ecosystem", "offload_evidence",
           "index_helpers",
           "roots", "launched_names",
           "any_cubecl", "all_cube_checked", "has_statics", "shared_statics", "defined", "defined_host",
           "shadowed", "shadowed_heap", "unsafe_names", "fn_names")


class FileFacts:
    """Facts about the whole file.

    Args:
        starts: each unit's current start byte, in document order.
        summaries: each unit's summary (same order).
        device_info: each unit's :data:`DeviceInfo` when already known (the previous
            analysis's, when no unit's exports changed); computed from the summaries
            otherwise.
        abs_seed: unit index -> (kernels, launches) already at the unit's current offsets.
        crate: the rest of the file's crate (analysis/crate_index.py), ``None`` for a file
            analysed alone.
        carried: cached properties of a previous analysis whose units' exports (and crate)
            were the same, and which hold no positions (:data:`CARRIED`).
    """

    def __init__(self, starts: list[int], summaries: list[UnitSummary],
                 device_info: list[DeviceInfo] | None = None,
                 abs_seed: dict[int, tuple[tuple[Kernel, ...], tuple[Launch, ...]]] | None = None,
                 crate=None, carried: dict | None = None) -> None:
        self.starts = starts
        self.summaries = summaries
        self.crate = crate
        if device_info is not None:
            self.__dict__["device_info"] = device_info
        for name, value in (carried or {}).items():  # position-free facts of an equal file
            self.__dict__[name] = value
        self._abs: dict[int, tuple[tuple[Kernel, ...], tuple[Launch, ...]]] = dict(abs_seed or {})

    def carried(self) -> dict[str, object]:
        """The :data:`CARRIED` facts computed so far, for the next analysis of an equal file."""
        return {name: self.__dict__[name] for name in CARRIED if name in self.__dict__}

    def placed_objects(self, keep) -> dict[int, tuple[tuple[Kernel, ...], tuple[Launch, ...]]]:
        """Unit index -> (kernels, launches) at current offsets, of the units computed so
        far for which ``keep(i)`` holds (a copy: a reader of this analysis may still be
        filling it)."""
        return {i: objs for i, objs in self._abs.copy().items() if keep(i)}

    def delta(self, i: int) -> int:
        """Bytes unit ``i`` moved since its summary was made."""
        return self.starts[i] - self.summaries[i].start

    def unit_objects(self, i: int) -> tuple[tuple[Kernel, ...], tuple[Launch, ...]]:
        """Kernels (marked ones, then functions that a launch names) and launches of unit
        ``i`` at its current offsets."""
        found = self._abs.get(i)
        if found is None:
            s, d = self.summaries[i], self.delta(i)
            kernels = self._unit_kernel_records(i)
            if d == 0:
                found = (kernels, s.launches)
            else:
                found = (tuple(shift.kernel(k, d) for k in kernels), tuple(shift.launch(la, d) for la in s.launches))
            self._abs[i] = found
        return found

    def _unit_kernel_records(self, i: int) -> tuple[Kernel, ...]:
        """Unit ``i``'s kernels at its summary's offsets: marked kernels with ``#[kernel]``
        resolved to its ecosystem, and the unit's module-level functions that an ``offload``
        launch names while no kernel of that name is marked in the crate."""
        s = self.summaries[i]
        out = [self._resolved(k) for k in s.kernels]
        if s.items.fns and self.launched_names:
            marked = {k.fn_start for k in s.kernels}
            for f in s.items.fns:
                if f.name in self.launched_names and f.fn_start not in marked and f.body_span is not None \
                        and f.name not in self._marked_names:
                    out.append(shift.replace(f, launched=True, marker="named by a launch"))
        return tuple(out)

    def _resolved(self, k: Kernel) -> Kernel:
        if k.ecosystem is Ecosystem.CUDA:
            eco = self.kernel_attr_ecosystem
            if eco is not Ecosystem.CUDA:
                return shift.replace(k, ecosystem=eco)
        if k.ecosystem is Ecosystem.GPU_KERNEL_ABI and not self.offload_evidence:
            # a HIP / Vulkan / cudarc host launches it with device addresses: nothing is
            # copied by the parameters' types
            return shift.replace(k, ecosystem=Ecosystem.PTX_KERNEL,
                                 params=tuple(shift.replace(p, transfer=Transfer.UNKNOWN) for p in k.params))
        return k

    @cached_property
    def items(self) -> tuple[ItemFacts, ...]:
        """Each unit's module-level items (analysis/units.py ``ItemFacts``), in document order."""
        return tuple(s.items for s in self.summaries)

    @cached_property
    def index_helpers(self) -> dict[str, frozenset[str]]:
        """The file's functions that take no parameters and return the thread's position
        (``fn global_x() -> usize``), name -> dependence kinds (units.py ``position_kinds``);
        a name defined twice with different answers is left out."""
        out: dict[str, frozenset[str]] = {}
        clash: set[str] = set()
        for s in self.summaries:
            for f in s.fns:
                if f.name and f.position:
                    if f.name in out and out[f.name] != f.position:
                        clash.add(f.name)
                    out[f.name] = f.position
        return {k: v for k, v in out.items() if k not in clash}

    @cached_property
    def offload_evidence(self) -> bool:
        """Does the file or its crate use rustc offload (a ``#[rustc_offload_kernel]`` /
        ``#[offload_kernel]`` kernel, or an ``offload``/``offload!`` launch)? A bare
        ``extern "gpu-kernel"`` fn is an offload kernel only then; elsewhere its host (HIP,
        Vulkan, cudarc: e.g. Flakebi/game-of-life-rust-gpu) passes device addresses."""
        if self.launched_names or any(k.ecosystem is Ecosystem.OFFLOAD for s in self.summaries for k in s.kernels):
            return True
        return self.crate is not None and any(k.ecosystem is Ecosystem.OFFLOAD
                                              for ks in self.crate.kernels.values() for k in ks)

    def unit_kernels(self, i: int) -> tuple[Kernel, ...]:
        """Kernels of unit ``i`` at its current offsets."""
        s = self.summaries[i]
        if not s.kernels and not (s.items.fns and self.launched_names):
            return ()
        return self.unit_objects(i)[0]

    # ------------------------------------------------------------------ the crate

    @cached_property
    def roots(self) -> frozenset[str]:
        """First segments of the paths the file (and its crate) use: which ecosystems'
        crates are in play."""
        own = frozenset().union(*(s.items.roots for s in self.summaries if s.items.roots))
        return own | self.crate.roots if self.crate is not None else own

    @cached_property
    def kernel_attr_ecosystem(self) -> Ecosystem:
        """The ecosystem a ``#[kernel]`` attribute belongs to here (Rust-CUDA, krnl or
        cuda-oxide, by the crates the file and its crate use)."""
        return resolve_kernel_attr(self.roots)

    @cached_property
    def primary_ecosystem(self) -> Ecosystem:
        """The ecosystem of the file's first marked kernel (std offload without one): what a
        helper function that is not itself a kernel is judged by."""
        for s in self.summaries:
            if s.kernels:
                return self._resolved(s.kernels[0]).ecosystem
        return Ecosystem.OFFLOAD

    def profile_of(self, kernel: Kernel | None) -> Profile:
        """The ecosystem profile of ``kernel`` (of the file's first marked kernel when
        ``None``: :attr:`primary_ecosystem`)."""
        if kernel is None:
            return profile(self.primary_ecosystem)
        eco = kernel.ecosystem
        if eco is Ecosystem.CUDA:
            eco = self.kernel_attr_ecosystem
        elif eco is Ecosystem.GPU_KERNEL_ABI and not self.offload_evidence:
            eco = Ecosystem.PTX_KERNEL
        return profile(eco)

    @cached_property
    def renames(self) -> dict[str, str]:
        """``use a::b as c;`` in the file and its crate: c -> b."""
        out = dict(self.crate.renames) if self.crate is not None else {}
        for s in self.summaries:
            for alias, original in s.items.renames:
                out[alias] = original
        return out

    @cached_property
    def import_roots(self) -> dict[str, frozenset[str]]:
        """``use`` declarations of the file: name brought into scope -> first segments of the
        paths it comes from (``use my_frontend::offload;``: offload -> {my_frontend})."""
        out: dict[str, set[str]] = {}
        for s in self.summaries:
            for name, root in s.items.imports:
                out.setdefault(name, set()).add(root)
        return {n: frozenset(r) for n, r in out.items()}

    def original_name(self, name: str) -> str:
        """``name`` through ``use .. as ..`` renames."""
        return self.renames.get(name, name)

    @cached_property
    def own_launches(self) -> list[Launch]:
        """Launch sites of this file at current offsets (same as :attr:`launches`)."""
        return self.launches

    @cached_property
    def launched_names(self) -> frozenset[str]:
        """Kernel names that an ``offload!`` / ``core::intrinsics::offload`` launch of the
        file or its crate names (through renames): such a function is a kernel whether or
        not it is marked (rustc's own tests launch unmarked functions)."""
        names = {la.kernel for s in self.summaries for la in s.launches
                 if la.kernel and la.form in ("offload!", "offload()")}
        if self.crate is not None:
            names |= {la.kernel for la in self.crate.launches if la.kernel and la.form in ("offload!", "offload()")}
        return frozenset(self.original_name(n) for n in names)

    @cached_property
    def _marked_names(self) -> frozenset[str]:
        own = {k.name for s in self.summaries for k in s.kernels}
        if self.crate is not None:
            own |= set(self.crate.kernels)
        return frozenset(own)

    @cached_property
    def _own_consts(self) -> dict[str, tuple | None]:
        out: dict[str, tuple | None] = {}
        for s in self.summaries:
            for name, expr in s.items.consts:
                out.setdefault(name, expr)
        return out

    def const_expr(self, name: str) -> tuple | None:
        """The constant expression of ``const name`` in the file, else in its crate."""
        name = self.original_name(name)
        if name in self._own_consts:
            return self._own_consts[name]
        return self.crate.consts.get(name) if self.crate is not None else None

    def fold(self, expr: tuple | None) -> int | None:
        """The value of a constant expression with the crate's constants."""
        return fold(expr, self.const_expr)

    def const_value(self, name: str) -> int | None:
        """The folded value of ``const name`` (file, then crate), ``None`` if not known."""
        return self.fold(("name", name))

    @cached_property
    def _own_aliases(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for s in self.summaries:
            for name, text in s.items.aliases:
                out.setdefault(name, text)
        return out

    def resolve_type(self, text: str) -> str:
        """``text`` with a type alias of the file or crate followed (``Real`` -> ``f64``),
        up to 8 levels; unchanged when it is no alias."""
        seen = 0
        while seen < 8:
            target = self._own_aliases.get(text)
            if target is None and self.crate is not None:
                target = self.crate.aliases.get(text)
            if target is None:
                return text
            text = target
            seen += 1
        return text

    @cached_property
    def module_static_decls(self) -> dict[str, object]:
        """Module-level ``static mut`` name -> its declaration (file first, then crate)."""
        out = dict(self.crate.statics) if self.crate is not None else {}
        for s in self.summaries:
            for d in s.statics:
                if d.module_level:
                    out[d.name] = d
        return out

    def launch_dims(self, launch: Launch) -> tuple[tuple[int | None, ...] | None, tuple[int | None, ...] | None]:
        """(workgroup / grid dims, thread / block dims) of ``launch`` folded with the crate's
        constants, each per dimension (``None`` where not known), ``None`` where the launch
        gives none."""
        def folded(exprs):
            if exprs is None:
                return None
            return tuple(self.fold(e) for e in exprs)
        return folded(launch.workgroup_expr), folded(launch.thread_expr)

    @cached_property
    def _all_launches(self) -> dict[str, list[Launch]]:
        out: dict[str, list[Launch]] = {}
        for la in (*self.launches, *(self.crate.launches if self.crate is not None else ())):
            if la.kernel:
                out.setdefault(self.original_name(la.kernel), []).append(la)
        return out

    def all_launches_of(self, name: str) -> list[Launch]:
        """Launches naming kernel ``name`` (through renames) in the file and its crate, the
        file's first."""
        return list(self._all_launches.get(name, ()))

    def kernel_anywhere(self, name: str) -> Kernel | None:
        """The kernel (marked, or a function a launch names) called ``name`` in the file,
        else in its crate; with ``#[kernel]`` resolved to its ecosystem."""
        name = self.original_name(name)
        k = self.kernel_named(name)
        if k is not None:
            return k
        if self.crate is not None:
            found = self.crate.kernels.get(name)
            if found:
                return self._resolved(found[0])
            f = self.crate.fns.get(name)
            if f is not None and name in self.launched_names:
                return shift.replace(f, launched=True, marker="named by a launch")
        return None

    def kernel_is_ambiguous(self, name: str) -> bool:
        """More than one kernel of the crate is called ``name`` (``a::add1`` and ``b::add1``):
        a launch naming it by its last segment cannot be paired with one kernel's parameters,
        so the rules that compare a launch with its kernel say nothing (precision first)."""
        name = self.original_name(name)
        here = sum(1 for k in self.kernels if k.name == name)
        there = len(self.crate.kernels.get(name, ())) if self.crate is not None else 0
        return here + there > 1

    def function_anywhere(self, name: str) -> Kernel | None:
        """Any module-level function called ``name`` (file, then crate), as an unmarked record."""
        name = self.original_name(name)
        for s in self.summaries:
            for f in s.items.fns:
                if f.name == name:
                    return f
        return self.crate.fns.get(name) if self.crate is not None else None

    @cached_property
    def own_semantic_hash(self) -> int:
        """A hash of what the crate-wide rules read of this file alone: every unit's
        semantic exports (analysis/units.py) and host-side ``extern`` declarations."""
        parts = []
        for s in self.summaries:
            sem = s.exports[-1] if s.exports else None
            if sem is not None and (sem[0] or any(sem[2:])):  # units without kernels or items add nothing
                parts.append(sem[2:] + sem[:1])
            if s.extern_decls:  # host declarations of kernels (launch_arg_mismatch, kernel_decl_mismatch)
                parts.append(s.exports[8])
        return hash(tuple(parts))

    @cached_property
    def semantic_core(self) -> int:
        """A hash of what the crate-wide rules read of the file and its crate besides the
        launches of particular kernels: :attr:`own_semantic_hash`, the crate view's
        fingerprint and the names launches give kernels."""
        return hash((self.crate.fingerprint if self.crate is not None else None, self.own_semantic_hash,
                     self.launched_names))

    def launch_key(self, kernel_name: str) -> tuple:
        """What the launches of ``kernel_name`` (file and crate) say, without positions."""
        return tuple((la.form, la.arity, la.has_args, la.workgroup_expr, la.thread_expr, la.device_expr,
                      tuple(n for n, _ in la.fields), tuple(a.text for a in la.args))
                     for la in self._all_launches.get(kernel_name, ()))

    @cached_property
    def launch_keys(self) -> dict[str, tuple]:
        """:meth:`launch_key` of every launched kernel name."""
        return {name: self.launch_key(name) for name in self._all_launches}

    def unit_launches(self, i: int) -> tuple[Launch, ...]:
        """Launch sites of unit ``i`` at its current offsets."""
        return self.unit_objects(i)[1] if self.summaries[i].launches else ()

    @cached_property
    def kernels(self) -> list[Kernel]:
        """Every kernel (marked, or named by a launch), in document order."""
        return [k for i in range(len(self.summaries)) for k in self.unit_kernels(i)]

    @cached_property
    def launches(self) -> list[Launch]:
        """Every launch site, in document order."""
        return [la for i, s in enumerate(self.summaries) if s.launches for la in self.unit_objects(i)[1]]

    # ------------------------------------------------------------------ device code

    @cached_property
    def device_info(self) -> list[DeviceInfo]:
        """Each unit's device functions (analysis/device_code.py ``device_graph``)."""
        fns = []
        kernels = []
        for i, s in enumerate(self.summaries):
            if s.fns:
                d = self.delta(i)
                for j, f in enumerate(s.fns):
                    fns.append(_Fn(f.start + d, f.end + d, f.name, f.body is not None, f.callees, f.gated, i, j,
                                   f.host, f.module, f.owner))
            records = self._unit_kernel_records(i) if (s.kernels or s.items.fns) else ()
            if records:
                d = self.delta(i)
                for ki, k in enumerate(records):
                    kernels.append(_K(k.name, k.fn_start + d, k.body_span is not None, i, ki))
        per_unit: list[list[tuple[int, str, str, int]]] = [[] for _ in self.summaries]
        for fn, name, reason, kernel in device_graph(fns, kernels).values():
            per_unit[fn.unit].append((fn.index, name, reason, kernel.index if kernel is not None else -1))
        return [tuple(x) for x in per_unit]

    def device_fns_of(self, i: int) -> list[DeviceFn]:
        """Device functions of unit ``i`` at current offsets, kernels first."""
        info = self.device_info[i]
        if not info:
            return []
        s, d = self.summaries[i], self.delta(i)
        kernels = self.unit_kernels(i)
        out = []
        for j, name, reason, ki in info:
            f = s.fns[j]
            span = Span(f.start + d, f.end + d)
            if ki >= 0:
                k = kernels[ki]
                out.append(DeviceFn(name, span, k.body_span, reason, k))  # type: ignore[arg-type]
            else:
                out.append(DeviceFn(name, span, shift.span(f.body, d), reason))  # type: ignore[arg-type]
        out.sort(key=lambda x: (x.kernel is None, x.span.start))
        return out

    @cached_property
    def device_fns(self) -> list[DeviceFn]:
        """Device-code functions of the whole file, kernels first (analysis/device_code.py)."""
        out = [f for i, info in enumerate(self.device_info) if info for f in self.device_fns_of(i)]
        out.sort(key=lambda x: (x.kernel is None, x.span.start))
        return out

    # ------------------------------------------------------------------ kernels and launches

    @cached_property
    def _kernel_by_name(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for i in range(len(self.summaries)):
            for ki, k in enumerate(self.unit_kernels(i)):
                out.setdefault(k.name, (i, ki))
        return out

    def kernel_named(self, name: str) -> Kernel | None:
        """The first kernel (in document order) called ``name``."""
        at = self._kernel_by_name.get(name)
        return None if at is None else self.unit_kernels(at[0])[at[1]]

    def kernel_params_sig(self, name: str) -> tuple | None:
        """(kind, map type) of each parameter of :meth:`kernel_named` ``(name)``, ``None``
        without such a kernel (what aliased_launch_args reads of it)."""
        at = self._kernel_by_name.get(name)
        if at is None:
            return None
        return tuple((p.kind, p.transfer) for p in self.unit_kernels(at[0])[at[1]].params)

    @cached_property
    def kernel_param_sigs(self) -> dict[str, tuple | None]:
        """:meth:`kernel_params_sig` of every kernel name of the file."""
        return {name: self.kernel_params_sig(name) for name in self._kernel_by_name}

    @property
    def launch_threads(self) -> dict[str | None, list[int | None]]:
        """Kernel name -> total threads of each of its launches (file and crate), folded
        with the crate's constants and the form's default dimensions; ``None`` where not
        known."""
        return self._threads_by_kernel

    @cached_property
    def _threads_by_kernel(self) -> dict[str | None, list[int | None]]:
        """Kernel name -> total threads of each of its launches (file and crate), folded
        with the crate's constants and the form's default dimensions; ``None`` where not
        known."""
        out: dict[str | None, list[int | None]] = {}
        for name, launches in self._all_launches.items():
            out[name] = [self.total_threads(la) for la in launches]
        return out

    def full_dims(self, launch: Launch) -> tuple[tuple[int | None, ...] | None, tuple[int | None, ...] | None]:
        """:meth:`launch_dims` with the launch form's defaults where it gives none (the
        ecosystem profile's ``launch_defaults``: ``offload!`` runs one thread by default)."""
        wg, th = self.launch_dims(launch)
        defaults = profile(Ecosystem.OFFLOAD).launch_defaults.get(launch.form)
        if defaults is not None:
            wg = wg if wg is not None else defaults[0]
            th = th if th is not None else defaults[1]
        return wg, th

    def total_threads(self, launch: Launch) -> int | None:
        """Threads in total of ``launch``, ``None`` unless every dimension is known."""
        wg, th = self.full_dims(launch)
        if not wg or not th:
            return None
        total = 1
        for d in (*wg, *th):
            if d is None:
                return None
            total *= d
        return total

    @cached_property
    def _launches_by_kernel(self) -> dict[str | None, list[Launch]]:
        out: dict[str | None, list[Launch]] = {}
        for la in self.launches:
            out.setdefault(la.kernel, []).append(la)
        return out

    def launches_of(self, kernel_name: str) -> list[Launch]:
        """Launch sites that name ``kernel_name``, in document order."""
        return list(self._launches_by_kernel.get(kernel_name, ()))

    def single_thread(self, kernel_name: str) -> bool:
        """Every launch of ``kernel_name`` (at least one, in the file or its crate) runs
        exactly one thread in total (dimensions folded, defaults filled in)."""
        threads = self._threads_by_kernel.get(kernel_name)
        return bool(threads) and all(t == 1 for t in threads)

    @cached_property
    def last_launch_end(self) -> int:
        """End byte of the launch site that ends last, -1 without launches."""
        return max((la.span.end + self.delta(i) for i, s in enumerate(self.summaries) if s.launches
                    for la in s.launches), default=-1)

    # ------------------------------------------------------------------ names

    @cached_property
    def has_statics(self) -> bool:
        """The file declares at least one ``static mut`` (anywhere)."""
        return any(s.statics for s in self.summaries)

    @cached_property
    def module_statics(self) -> dict[str, Span]:
        """Module-level ``static mut`` name -> its first declaration's name span."""
        out: dict[str, Span] = {}
        for i, s in enumerate(self.summaries):
            for d in s.statics:
                if d.module_level and d.name not in out:
                    out[d.name] = shift.span(d.span, self.delta(i))
        return out

    @cached_property
    def shared_statics(self) -> frozenset[str]:
        """Module-level ``static mut`` names that are block-shared memory (file and crate)."""
        return frozenset(n for n, d in self.module_static_decls.items() if d.shared)

    @cached_property
    def shadowed(self) -> frozenset[str]:
        """Names ``use``-imported from crates other than std/alloc/core."""
        return frozenset().union(*(s.shadowed for s in self.summaries if s.shadowed))

    @cached_property
    def shadowed_heap(self) -> frozenset[str]:
        """:attr:`shadowed` names that heap_owning_kernel_arg looks for (``Vec``, ..)."""
        return self.shadowed & HEAP_NAMES

    @cached_property
    def shadowed_host(self) -> frozenset[str]:
        """:attr:`shadowed` names that host_only_api_in_kernel looks for."""
        return self.shadowed & HOST_ONLY_NAMES

    @cached_property
    def float_fns(self) -> frozenset[str]:
        """Functions of the file named like one of std's float methods (``fn sqrt``): a call
        of the file's own is not std's."""
        return self.fn_names & STD_FLOAT_METHODS

    @cached_property
    def defined_host(self) -> frozenset[str]:
        """:attr:`defined` names that host_only_api_in_kernel looks for (``println``,
        ``Vec``, ..): a local definition is not std's."""
        return self.defined & HOST_ONLY_NAMES

    @cached_property
    def defined(self) -> frozenset[str]:
        """Struct / enum / type / macro names defined in the file."""
        return frozenset().union(*(s.defined for s in self.summaries if s.defined))

    @cached_property
    def unsafe_names(self) -> frozenset[str]:
        """Names of the file's unsafe functions (``unsafe fn``, ``extern`` declarations)."""
        return frozenset().union(*(s.unsafe_names for s in self.summaries if s.unsafe_names))

    @cached_property
    def fn_names(self) -> frozenset[str]:
        """Names of every function of the file (safe or not)."""
        return frozenset().union(*(s.fn_names for s in self.summaries if s.fn_names))

    @cached_property
    def _externs(self) -> dict[str, list[ExternDecl]]:
        out: dict[str, list[ExternDecl]] = {}
        for i, s in enumerate(self.summaries):
            if not s.extern_decls:
                continue
            d = self.delta(i)
            for e in s.extern_decls:
                if d:
                    e = ExternDecl(e.name, tuple(None if p is None else ExternParam(p.type_text, p.kind,
                                                                                    shift.span(p.type_span, d))
                                                 for p in e.params),
                                   None if e.name_span is None else shift.span(e.name_span, d))
                out.setdefault(e.name, []).append(e)
        return out

    @property
    def has_externs(self) -> bool:
        """Some ``extern`` block declares a function."""
        return bool(self._externs)

    def extern_decls_named(self, name: str) -> list[ExternDecl]:
        """Functions called ``name`` declared in ``extern`` blocks, in document order."""
        return self._externs.get(name, [])

    @property
    def extern_names(self) -> frozenset[str]:
        """Names of the functions declared in ``extern`` blocks."""
        return frozenset(self._externs)

    def extern_types(self, name: str) -> tuple:
        """(name, parameter (type, kind) or ``None``) of each ``extern`` declaration called
        ``name``, without positions."""
        return tuple((d.name, tuple(None if p is None else (p.type_text, p.kind) for p in d.params))
                     for d in self._externs.get(name, ()))

    @cached_property
    def extern_signatures(self) -> dict[str, tuple]:
        """:meth:`extern_types` of every declared name."""
        return {name: self.extern_types(name) for name in self._externs}

    @cached_property
    def comments(self) -> list[CommentRec]:
        """Suppression comments, in document order."""
        out = []
        for i, s in enumerate(self.summaries):
            if s.comments:
                d = self.delta(i)
                out.extend(c if d == 0 else CommentRec(c.start + d, c.end + d, c.rules,
                                                       None if c.target_end is None else c.target_end + d)
                           for c in s.comments)
        return out

    # ------------------------------------------------------------------ ecosystems

    @cached_property
    def any_cubecl(self) -> bool:
        """Some kernel of the file is a CubeCL kernel."""
        return any(k.ecosystem is Ecosystem.CUBECL for s in self.summaries for k in s.kernels)

    @cached_property
    def cube_checked(self) -> frozenset[int]:
        """``fn_start`` of the functions in CubeCL's bounds-checked mode (``#[cube(launch)]``);
        empty unless the file has a CubeCL kernel."""
        if not self.any_cubecl:
            return frozenset()
        return frozenset(x + self.delta(i) for i, s in enumerate(self.summaries) for x in s.cube_launch)

    @cached_property
    def all_cube_checked(self) -> bool:
        """The file has kernels and all of them are in CubeCL's checked mode."""
        if not self.any_cubecl:
            return False
        found = False
        for s in self.summaries:
            if s.kernels:
                found = True
                if not all(k.fn_start in s.cube_launch for k in s.kernels):
                    return False
        return found


class _Fn:
    """A function item for :func:`device_graph`, at current offsets, with where it is."""

    __slots__ = ("start", "end", "name", "has_body", "callees", "gated", "unit", "index", "host", "module", "owner")

    def __init__(self, start, end, name, has_body, callees, gated, unit, index, host=False, module="",
                 owner="") -> None:
        self.start, self.end, self.name, self.has_body = start, end, name, has_body
        self.callees, self.gated, self.unit, self.index = callees, gated, unit, index
        self.host, self.module, self.owner = host, module, owner


class _K:
    """A kernel for :func:`device_graph`, with where it is."""

    __slots__ = ("name", "fn_start", "has_body", "unit", "index")

    def __init__(self, name, fn_start, has_body, unit, index) -> None:
        self.name, self.fn_start, self.has_body, self.unit, self.index = name, fn_start, has_body, unit, index

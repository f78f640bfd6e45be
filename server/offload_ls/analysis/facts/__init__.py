"""File-level facts, assembled from the per-unit summaries (analysis/units/).

Each property is computed on first use only (a rule that is not run costs nothing) and
from the summaries alone: no tree access, no query. A summary may come from the cache,
made when its unit sat elsewhere in the file: ``starts[i] - summaries[i].start`` is the
number of bytes unit ``i`` has moved since, added to its offsets where they are used.

:class:`FileFacts` holds the units' kernels and launches and what the crate-wide rules read
of them; its other facts come by meaning from the modules of this package: ``crate``
(names, constants, aliases, kernels found by name), ``launches``, ``device`` (device code,
CubeCL checked mode) and ``names`` (statics, imported / defined names, ``extern``
declarations).
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis import shift
from offload_ls.analysis.facts.crate import CrateFacts
from offload_ls.analysis.facts.device import DeviceFacts, DeviceInfo
from offload_ls.analysis.facts.launches import LaunchFacts
from offload_ls.analysis.facts.names import NameFacts
from offload_ls.analysis.model import Ecosystem, Kernel, Launch, Transfer
from offload_ls.analysis.suppress import CommentRec
from offload_ls.analysis.units import ItemFacts, UnitSummary

#: The position-free facts an analysis may take over from the previous one when every unit's
#: exports and the crate view are the same (analysis/incremental.py plan's fast path).
CARRIED = ("semantic_core", "own_semantic_hash", "primary_ecosystem", "kernel_attr_ecosystem", "offload_evidence",
           "index_helpers", "helper_call_table",
           "roots", "launched_names",
           "any_cubecl", "all_cube_checked", "has_statics", "shared_statics", "defined", "defined_host",
           "shadowed", "shadowed_heap", "unsafe_names", "fn_names")


class FileFacts(CrateFacts, LaunchFacts, DeviceFacts, NameFacts):
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
        """Each unit's module-level items (analysis/units/ ``ItemFacts``), in document order."""
        return tuple(s.items for s in self.summaries)

    @cached_property
    def index_helpers(self) -> dict[str, frozenset[str]]:
        """The file's functions that take no parameters and return the thread's position
        (``fn global_x() -> usize``), name -> dependence kinds (units/summary.py ``position_kinds``);
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

    @cached_property
    def own_semantic_hash(self) -> int:
        """A hash of what the crate-wide rules read of this file alone: every unit's
        semantic exports (analysis/units/) and host-side ``extern`` declarations."""
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



"""The query captures a unit's summary is read from: one pass of several queries
(:data:`UNIT_QUERIES`) over the file or over each unit, split by unit.
"""

from __future__ import annotations

import bisect

from tree_sitter import Node

from offload_ls.analysis.units.split import Unit
from offload_ls.syntax.queries import captures, captures_many

#: Query files read for every unit, in one pass (syntax/queries.py ``captures_many``).
UNIT_QUERIES = (
    "unit_anchors", "kernel_abi", "launches", "calls", "cfg_attributes",
    "static_mut", "unsafe_fns", "extern_decls", "shared_to_mut_casts",
    "defined_names", "items",
)
#: Query files run only on the units whose bytes hold the given text (a suppression comment
#: names ``offload-ls``): every comment of a file is a capture of grammars/rust/suppressions.scm,
#: and capturing and bucketing them all cost more than the rest of a host file's summary.
SCREENED_QUERIES = (("suppressions", b"offload-ls"),)
# Every pattern of grammars/rust/kernel_markers.scm matches one ``attribute_item`` whose text
# holds "kernel" (offload_kernel, rustc_offload_kernel, kernel), "spirv" or "cube": the query
# runs on those attributes only (marker_captures), its text predicates being costly on all.


def unit_captures(units: list[Unit], root: Node, source: bytes) -> list[dict[str, dict[str, list[Node]]]]:
    """The :data:`UNIT_QUERIES` captures of each unit (same order as ``units``), and those
    of :data:`SCREENED_QUERIES` in the units whose bytes (of ``source``) hold their text.

    One pass over ``root`` when most of the file is asked for (the captures are split by
    unit), otherwise one pass over each unit's byte range."""
    if not units:
        return []
    total = sum(u.end - u.start for u in units)
    if len(units) > 8 and total * 2 > root.end_byte - root.start_byte:
        out = _bucket(units, captures_many(UNIT_QUERIES, root))
    else:
        out = [_bucket([u], captures_many(UNIT_QUERIES, u.parent, (u.start, u.end)))[0] for u in units]
    for name, needle in SCREENED_QUERIES:
        for u, caps in zip(units, out):
            if source.find(needle, u.start, u.end) >= 0:
                found = _bucket([u], captures_many((name,), u.parent, (u.start, u.end)))[0]
                if found:
                    caps.update(found)
    return out


def _bucket(units: list[Unit], found: dict[str, dict[str, list[Node]]]) -> list[dict[str, dict[str, list[Node]]]]:
    """Split captures by the unit whose range holds each node's start (others dropped)."""
    starts = [u.start for u in units]
    out: list[dict[str, dict[str, list[Node]]]] = [{} for _ in units]
    for file, caps in found.items():
        for cap, nodes in caps.items():
            for n in nodes:
                s = n.start_byte
                i = bisect.bisect_right(starts, s) - 1
                if i >= 0 and s < units[i].end:
                    out[i].setdefault(file, {}).setdefault(cap, []).append(n)
    return out


def marker_captures(attrs: list[Node]) -> dict[str, list[Node]]:
    """grammars/rust/kernel_markers.scm's captures among ``attrs`` (attribute items in
    document order), as one run of the query over their parent would give them."""
    out: dict[str, list[Node]] = {}
    for attr in attrs:
        text = attr.text or b""
        if b"kernel" in text or b"spirv" in text or b"cube" in text:
            for key, nodes in captures("kernel_markers", attr).items():
                out.setdefault(key, []).extend(nodes)
    return out

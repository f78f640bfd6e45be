"""A file as a sequence of items ("units"), and the facts each item contributes to the file.

A *unit* is one top-level item of the file (or of an inline ``mod { .. }`` body) together
with the attributes and comments directly before it: ``#[kernel]`` and a ``// offload-ls:
allow(..)`` comment belong to the function they precede. A ``mod name { .. }`` with a body is
split into a header unit (its attributes and ``mod name``) and the units of its body, so a
file whose code sits in one ``mod`` still has item-sized units.

Everything the rules need to know about *other* items of the file (which functions are
kernels, which are device code, launch dimensions, ``static mut`` names, ..) is read from
each unit's :class:`UnitSummary`, which depends only on the unit's bytes and on whether an
enclosing ``mod`` is under a device-only ``#[cfg]``. That is what makes summaries (and the
rules' per-unit results, analysis/engine.py) cacheable by the unit's bytes.

Facts are found with one pass of several queries at once (grammars/rust/*.scm, see
:data:`UNIT_QUERIES`); nothing here walks the whole tree in Python.

The package: units/split.py (splitting), units/resplit.py (re-splitting after an edit),
units/captures.py (the queries' captures by unit), units/records.py (:class:`UnitSummary` and
its records), units/summary.py (:func:`summarize`), units/items.py (module-level items),
units/gates.py (device / host code by ``#[cfg]`` and attributes).
"""

from offload_ls.analysis.units.captures import SCREENED_QUERIES, UNIT_QUERIES, unit_captures
from offload_ls.analysis.units.gates import host_excluded_ranges
from offload_ls.analysis.units.items import enclosing_block, is_shared_static
from offload_ls.analysis.units.records import (
                                                ExternDecl,
                                                ExternParam,
                                                FnRec,
                                                ItemFacts,
                                                StaticDecl,
                                                UnitSummary,
                                                exports,
                                                semantic_exports,
)
from offload_ls.analysis.units.resplit import resolve, split_units_after_edit
from offload_ls.analysis.units.split import Unit, split_units
from offload_ls.analysis.units.summary import summarize

__all__ = ["SCREENED_QUERIES", "UNIT_QUERIES", "ExternDecl", "ExternParam", "FnRec", "ItemFacts", "StaticDecl", "Unit",
           "UnitSummary", "enclosing_block", "exports", "host_excluded_ranges", "is_shared_static", "resolve",
           "semantic_exports", "split_units", "split_units_after_edit", "summarize", "unit_captures"]

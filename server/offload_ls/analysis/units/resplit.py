"""Re-splitting a file into units after an edit: only the top-level items around the edit
are split again; the units before and after it are taken over from the previous split
(their nodes found in the new tree when needed: :func:`resolve`).
"""

from __future__ import annotations

import bisect

from tree_sitter import Node

from offload_ls.analysis.units.split import SKIPPABLE, Unit, split_children


def split_units_after_edit(root: Node, source: bytes, old_source: bytes, old_units: list[Unit]
                           ) -> list[Unit] | None:
    """:func:`split_units` of an edited file, re-splitting only around the edit.

    The bytes before the first changed byte and after the last are unchanged; so are the
    units that lie wholly inside them with one unit of margin on each side, and their keys
    (their bytes, gate and node types). Only the top-level items between are split again,
    from ``root``'s children. The units taken over are marked :attr:`Unit.stale` (their
    nodes are the previous tree's; :func:`resolve` finds them in ``root`` when needed),
    those after the edit shifted by the change in length.

    An edit inside a ``mod`` body splits that whole top-level ``mod`` again. Returns
    ``None`` (split the whole file instead) when the new tree's top-level items do not
    begin and end where the kept units say — an edit whose effect reaches past its bytes
    (an unclosed brace or comment that swallows what follows).

    Args:
        root: the new tree's root; source: its bytes; old_source / old_units: the previous
            text and its units (:func:`split_units` or this function)."""
    if not old_units or root.type != "source_file":
        return None
    n_old, n_new = len(old_source), len(source)
    prefix = _common_prefix(old_source, source)
    suffix = _common_suffix(old_source, source, min(n_old, n_new) - prefix)
    delta = n_new - n_old
    window = _edit_window(old_units, prefix, n_old - suffix)
    if window is None:
        return None
    a, b = window
    win_start = old_units[a].start
    win_end = old_units[b].start + delta if b < len(old_units) else n_new
    if a > 0 and old_units[a - 1].end > win_start or win_end < win_start:
        return None
    children = _window_children(root, win_start, win_end, n_new, b < len(old_units))
    if children is None:
        return None
    middle: list[Unit] = []
    split_children(root, children, False, source, middle, root.has_error, 0, False)
    before = old_units[:a]
    after = old_units[b:] if not delta else [
        Unit(u.start + delta, u.end + delta, u.parent, u.nodes, u.gate, u.key, u.mod_body, u.host)
        for u in old_units[b:]]
    for u in (*before, *after):
        u.stale = True
    return [*before, *middle, *after]


def _edit_window(old_units: list[Unit], first_changed: int, last_changed: int) -> tuple[int, int] | None:
    """``(a, b)``: the old units ``[a, b)`` to split again for an edit of the old bytes from
    ``first_changed`` to ``last_changed``, with one unit of margin on each side, widened to
    whole top-level items; ``None`` when no top-level unit starts the window."""
    # units before the edit, one unit of margin: they end before its first changed byte
    # (0 <= a < len(old_units))
    a = max(0, bisect.bisect_left(old_units, first_changed, key=_end) - 1)
    # units after the edit, one unit of margin: they start after its last changed byte
    b = max(a, bisect.bisect_right(old_units, last_changed, key=_start))
    b = min(len(old_units), b + 1)
    # the window is whole top-level items: an edit inside a `mod` body splits the whole
    # `mod` again (its header unit is the top-level unit before its items)
    while a > 0 and not _top_level(old_units[a]):
        a -= 1
    while b < len(old_units) and not _top_level(old_units[b]):
        b += 1
    if not _top_level(old_units[a]):
        return None
    return a, b


def _window_children(root: Node, win_start: int, win_end: int, n_new: int, kept_after: bool) -> list[Node] | None:
    """The new tree's top-level children from ``win_start`` up to ``win_end``; ``None`` when
    they do not begin and end there (an item reaches across the window's edges), or, with
    units kept after the window (``kept_after``), when those do not begin where the tree's
    next item does or a comment / attribute now ends the window."""
    children = []
    child = root.first_child_for_byte(win_start) if win_start < n_new else None
    if child is not None and child.start_byte < win_start:
        return None  # an item that began before the window now reaches into it
    while child is not None and child.start_byte < win_end:
        children.append(child)
        child = child.next_sibling
    if children and children[-1].end_byte > win_end:
        return None  # an item of the window now reaches into the kept units after it
    if kept_after and (child is None or child.start_byte != win_end):
        return None  # the kept units after the window do not begin where the tree's items do
    if kept_after and children and children[-1].type in SKIPPABLE:
        # a comment / attribute now ends the window (an edit closed a block comment): a
        # whole split joins it to the item after it, which is a kept unit
        return None
    return children


def _start(unit: Unit) -> int:
    return unit.start


def _end(unit: Unit) -> int:
    return unit.end


def resolve(unit: Unit, root: Node) -> Unit:
    """``unit`` with ``parent``, ``nodes`` and ``mod_body`` of the tree ``root`` (a unit
    taken over from the previous tree by :func:`split_units_after_edit`); unchanged when
    it is not stale.

    Raises:
        LookupError: the tree has no nodes where the unit says (never for a unit that
            :func:`split_units_after_edit` kept)."""
    if not unit.stale:
        return unit
    node = root.descendant_for_byte_range(unit.start, unit.start)
    while node is not None and not (node.start_byte == unit.start and node.parent is not None
                                    and node.parent.type in ("source_file", "declaration_list")):
        node = node.parent
    if node is None:
        raise LookupError(f"no item at byte {unit.start}")
    parent = node.parent
    nodes = []
    while node is not None and node.start_byte < unit.end:
        nodes.append(node)
        node = node.next_sibling
    mod_body = None
    if nodes and nodes[-1].type == "mod_item" and nodes[-1].end_byte > unit.end:
        mod_body = nodes[-1].child_by_field_name("body")
    unit.parent, unit.nodes, unit.mod_body, unit.stale = parent, tuple(nodes), mod_body, False
    return unit


def _top_level(unit: Unit) -> bool:
    return unit.parent is not None and unit.parent.type == "source_file"


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of ``a`` and ``b`` (slices compared in C)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while lo < hi:  # a[:lo] == b[:lo] and a[:hi + 1] != b[:hi + 1]
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the longest common suffix of ``a`` and ``b``, at most ``limit``."""
    lo, hi = 0, max(0, limit)
    la, lb = len(a), len(b)
    if a[la - hi:] == b[lb - hi:] if hi else True:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo

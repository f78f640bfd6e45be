"""Bindings of a function's names (analysis/flow/scopes.py ``find_binding``): which ``let``
binds a name, with what value, and whether it is ``mut``."""

from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.syntax.parse import parse

SRC = b"""
fn k(data: &[f32], i: usize) {
    let (start, mut stop) = bounds(i);
    let (a, mut b) = (i, i + 4);
    let pair = (i, i);
    let (c, mut d) = pair;
    stop = d + b + a + c + start;
}
"""


def _bindings() -> dict[str, object]:
    fn = parse(SRC).root_node.named_children[0]
    flow = ThreadFlow(fn)
    last = fn.child_by_field_name("body").named_children[-1]
    return {n.text.decode(): flow.binding(n) for n in flow.identifiers(last)}


def test_a_mut_element_of_a_tuple_pattern_is_mutable_and_its_siblings_are_not():
    b = _bindings()
    assert (b["stop"].kind, b["stop"].mutable, b["stop"].value.text) == ("let", True, b"bounds(i)")
    assert (b["start"].kind, b["start"].mutable) == ("let", False)
    assert b["b"].mutable
    assert (b["a"].mutable, b["a"].value.text) == (False, b"i")
    assert (b["d"].kind, b["d"].mutable) == ("pattern", True)
    assert (b["c"].kind, b["c"].mutable) == ("pattern", False)

"""Old import path of the dataflow helpers, now in analysis/flow/ (flow/nodes.py,
flow/scopes.py, flow/sources.py, flow/thread_flow.py). Kept only for the rules and
analysis/context.py, which import these names from here; remove once they import from
analysis/flow/."""

from offload_ls.analysis.flow.nodes import MAX_DEPTH, identifiers, method_name, named, strip
from offload_ls.analysis.flow.scopes import find_binding
from offload_ls.analysis.flow.sources import FlowIndex
from offload_ls.analysis.flow.thread_flow import ThreadFlow

__all__ = ["MAX_DEPTH", "FlowIndex", "ThreadFlow", "find_binding", "identifiers", "method_name", "named", "strip"]

"""The per-file facts every lint rule reads, computed once per analysis."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from tree_sitter import Node

from offload_ls.analysis.device_code import DeviceFn, device_functions
from offload_ls.analysis.kernels import find_kernels
from offload_ls.analysis.launches import find_launches
from offload_ls.analysis.model import Kernel, Launch, Span


@dataclass
class FileContext:
    """A parsed file and what the analysis found in it.

    Args:
        source: the file's bytes (UTF-8). root: the tree-sitter root node of its tree.
    """

    source: bytes
    root: Node
    _nodes: dict = field(default_factory=dict, repr=False)

    @cached_property
    def kernels(self) -> list[Kernel]:
        return find_kernels(self.root)

    @cached_property
    def launches(self) -> list[Launch]:
        return find_launches(self.root, self.source)

    @cached_property
    def device_fns(self) -> list[DeviceFn]:
        return device_functions(self.root, self.kernels)

    def text(self, span: Span) -> str:
        """Source text of ``span`` (invalid UTF-8 replaced)."""
        return self.source[span.start : span.end].decode("utf-8", errors="replace")

    def node(self, span: Span) -> Node | None:
        """The smallest named node covering exactly ``span`` (e.g. a kernel body block)."""
        node = self.root.named_descendant_for_byte_range(span.start, span.end)
        while node is not None and (node.start_byte, node.end_byte) != (span.start, span.end):
            node = node.parent
        return node

    def launches_of(self, kernel_name: str) -> list[Launch]:
        """Launch sites in this file that name ``kernel_name``."""
        return [launch for launch in self.launches if launch.kernel == kernel_name]

    def kernel_named(self, name: str) -> Kernel | None:
        for k in self.kernels:
            if k.name == name:
                return k
        return None

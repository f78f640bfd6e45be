"""Which items are device code or host code by themselves: those under a device-only or a
host-only ``#[cfg]`` (analysis/cfg.py), those with an ecosystem's device-function attribute
(``#[cube]``) or a host-function one (``#[host]``), and the items the host pass never compiles.
"""

from __future__ import annotations

import bisect
from functools import cache

from tree_sitter import Node

from offload_ls.analysis.cfg import host_cfg_value, is_device_cfg, is_host_cfg
from offload_ls.analysis.ecosystems import profiles
from offload_ls.analysis.kernels import attributed_item
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures


def host_excluded_ranges(root: Node) -> list[tuple[int, int]]:
    """UTF-8 byte ranges of the items of the tree ``root`` whose ``#[cfg]`` is false in the
    host pass (``#[cfg(offload_device)] mod device { .. }``, ``#[cfg(target_arch =
    "nvptx64")] fn ..``; not ``#[cfg(any(offload_device, unix))]``, which the host compiles):
    code the host pass never compiles (toolchain/relink.py; analysis/cfg.py
    ``host_cfg_value``)."""
    out = []
    for attr, preds in _cfg_predicates(captures("cfg_attributes", root)):
        if any(host_cfg_value(p) is False for p in preds):
            target = attributed_item(attr)
            if target is not None:
                out.append((target.start_byte, target.end_byte))
    return out


def _cfg_predicates(cfg_caps: dict[str, list[Node]]) -> list[tuple[Node, list[Node]]]:
    """grammars/rust/cfg_attributes.scm's captures as (``#[cfg]`` attribute, its predicate
    token trees), for the attributes that have one."""
    preds = cfg_caps.get("predicate", [])
    starts = [p.start_byte for p in preds]
    out = []
    for attr in cfg_caps.get("attr", []) if preds else ():
        lo = bisect.bisect_left(starts, attr.start_byte)
        hi = bisect.bisect_left(starts, attr.end_byte, lo)
        if hi > lo:
            out.append((attr, preds[lo:hi]))
    return out


def gated_ranges(cfg_caps: dict[str, list[Node]], memo: dict[bytes, tuple[bool, bool]]
                  ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Byte ranges of the items that a device-only ``#[cfg]`` applies to, and of those a
    host-only one (``#[cfg(not(offload_device))]``) applies to: the item after the
    attribute (past other attributes and comments), everything inside it included."""
    device_out: list[tuple[int, int]] = []
    host_out: list[tuple[int, int]] = []
    for attr, preds in _cfg_predicates(cfg_caps):
        device = host = False
        for p in preds:
            text = p.text or b""
            value = memo.get(text)
            if value is None:
                value = memo[text] = (is_device_cfg(p), is_host_cfg(p))
            device, host = device or value[0], host or value[1]
        if device or host:
            target = attributed_item(attr)
            if target is not None:
                (device_out if device else host_out).append((target.start_byte, target.end_byte))
    return device_out, host_out


@cache
def _device_fn_attrs() -> frozenset[str]:
    return frozenset(a for p in profiles().values() for a in p.device_fn_attrs)


#: Attributes that mark a function as host code, never followed from a kernel: cudars's
#: ``#[host] fn sum(..)``, the host twin of its ``#[device] fn sum(..)`` of the same name.
HOST_FN_ATTRS = frozenset({"host"})


def attr_ranges(attrs: list[Node]) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """Byte ranges of the functions an ecosystem's device-function attribute applies to
    (CubeCL ``#[cube]``, cuda-oxide ``#[device]``: the profiles' ``device_fn_attrs``), each
    with the reason it is device code (``"a `#[cube]` function"``), and of those marked host
    code (:data:`HOST_FN_ATTRS`)."""
    wanted = _device_fn_attrs()
    device: list[tuple[int, int, str]] = []
    host: list[tuple[int, int]] = []
    for attr in attrs:
        a = next((c for c in attr.named_children if c.type == "attribute"), None)
        head = a.named_children[0] if a is not None and a.named_children else None
        name = node_text(head).rsplit("::", 1)[-1] if head is not None else ""
        if name not in wanted and name not in HOST_FN_ATTRS:
            continue
        target = attributed_item(attr)
        if target is not None and target.type == "function_item":
            if name in HOST_FN_ATTRS:
                host.append((target.start_byte, target.end_byte))
            else:
                device.append((target.start_byte, target.end_byte, f"a `#[{node_text(head)}]` function"))
    return device, host

"""Find kernel launch sites and their arguments.

Macro bodies are token trees, not expressions (DESIGN.md, "Known hard parts"), so the
argument lists of ``offload! { .. }`` and ``launch!(..)`` are re-parsed: the tokens'
source text is wrapped into a synthetic call ``__offload_ls(<text>);`` inside a function,
parsed with tree-sitter, and every byte offset is mapped back into the file.

Forms (grammars/rust/launches.scm):

- ``offload! { kernel = k, workgroup_dim = [..], thread_dim = [..], args = (..) }``
  (``grid_dim`` / ``block_dim`` accepted as synonyms);
- ``core::intrinsics::offload(k, args)`` (2 arguments, the first form of #131513; also with a
  turbofish, ``offload::<_, _, ()>(..)``, as rustc's tests write it),
  ``offload(k, workgroup_dim, thread_dim, args)`` (4), and the 5- and 6-argument forms,
  whose extra arguments sit between the dimensions and the argument tuple;
- Rust-CUDA ``launch!(module.k<<<grid, block, shared_mem, stream>>>(args..))``;
- CubeCL ``k::launch::<F, R>(&client, cube_count, cube_dim, args..)`` and
  ``k::launch_unchecked`` (cubecl-macros generates both for ``#[cube(launch)]`` /
  ``#[cube(launch_unchecked)]``); ``CubeCount::Static(x, y, z)`` and
  ``CubeDim::new(x, y, z)`` give the dimensions;
- krnl ``module::k::builder()?..build(device)?.dispatch(args..)``;
- wgpu ``ComputePipelineDescriptor { entry_point: Some("main_cs"), .. }`` naming a rust-gpu
  shader (form ``"wgpu"``: a name only; the dispatch is elsewhere).

Launch dimensions are kept as constant expressions (analysis/consts.py) so that the
crate's constants can fold them; an identifier bound by a ``let`` in the launching
function is followed to its value.

The package: launches/tokens.py (re-parsed token text), launches/dims.py (launch
dimensions), launches/offload.py (the std offload forms), launches/ecosystems.py (the other
ecosystems' forms).
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.launches.ecosystems import cube_launch, cuda_launch, krnl_dispatch, oxide_launch
from offload_ls.analysis.launches.offload import offload_call, offload_macro
from offload_ls.analysis.model import Launch, LaunchForm, Span
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures


def find_launches(root: Node, source: bytes) -> list[Launch]:
    """All launch sites under ``root`` in document order.

    Args:
        root: a node of the tree parsed from ``source``.
        source: the whole file's bytes (needed to re-parse macro token text; a root node's
            own ``text`` starts at its first token, not at byte 0).

    Never raises on broken code: a launch whose pieces cannot be found is reported with
    what could be read."""
    return launches_from_captures(captures("launches", root), source)


def launches_from_captures(caps: dict[str, list[Node]], source: bytes) -> list[Launch]:
    """Launches from the captures of grammars/rust/launches.scm (capture name -> nodes), in
    document order: what :func:`find_launches` returns for the subtree they were taken from.

    Each ``@launch`` / ``@call`` / ``@bare_call`` node is one site; its macro name, token
    tree and argument list are the node's own fields (the ones the query matched)."""
    launches: list[Launch] = []
    for node in caps.get("launch", []):
        macro = node.child_by_field_name("macro")
        if macro is not None and macro.type == "scoped_identifier":
            macro = macro.child_by_field_name("name")
        name = node_text(macro) if macro is not None else ""
        for tokens in node.children:
            if tokens.type == "token_tree":  # one site per token tree, as the query matches
                parse_macro = {"offload": offload_macro, "cuda_launch": oxide_launch}.get(name, cuda_launch)
                launch = parse_macro(node, tokens, source)
                if launch is not None:
                    launches.append(launch)
    for key, bare in (("call", False), ("bare_call", True)):
        for call in caps.get(key, []):
            args = call.child_by_field_name("arguments")
            launch = offload_call(call, args, bare=bare) if args is not None else None
            if launch is not None:
                launches.append(launch)
    for call, name, path, arguments in zip(caps.get("cube_call", []), caps.get("cube_fn", []),
                                           caps.get("cube_path", []), caps.get("cube_args", [])):
        launch = cube_launch(call, name, path, arguments)
        if launch is not None:
            launches.append(launch)
    for call, arguments in zip(caps.get("krnl_dispatch", []), caps.get("krnl_args", [])):
        launch = krnl_dispatch(call, arguments)
        if launch is not None:
            launches.append(launch)
    for entry, name in zip(caps.get("wgpu_entry", []), caps.get("wgpu_name", [])):
        launches.append(Launch(form=LaunchForm.WGPU, kernel=node_text(name),
                               kernel_span=Span(name.start_byte, name.end_byte),
                               span=Span(entry.start_byte, entry.end_byte), args=()))
    launches.sort(key=lambda launch: launch.span.start)
    return launches

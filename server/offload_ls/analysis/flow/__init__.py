"""Dataflow inside one function (over the Rust-syntax helpers of syntax/nodes.py: ``strip``,
``named``, ``identifiers``, ``ParentMap``).

- flow/scopes.py: name resolution: ``let`` bindings, block scopes, closures, loops,
  patterns (``find_binding``, ``LetIndex``, ``Binding``);
- flow/sources.py: thread-index sources by kind of thread position (``DependenceKind``,
  ``FlowIndex``);
- flow/thread_flow.py: ``ThreadFlow``: what depends on which thread position, what is the
  same for every thread, which value reaches a use.

Pure syntax; nothing here reads or writes files.
"""

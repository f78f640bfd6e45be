; Nodes the thread-index dataflow (analysis/indexing.py ThreadFlow) needs from one function,
; collected in one pass instead of walking the tree in Python. The unchecked-index methods
; (p.add(i), s.get_unchecked(i), krnl's y.unsafe_index_mut(i)) come from the ecosystem profiles.
(function_item) @fn
(let_declaration) @let
[(assignment_expression) (compound_assignment_expr)] @write
[(return_expression) (break_expression) (continue_expression) (try_expression)] @exit
(identifier) @ident
; identifiers that name no value (analysis/indexing.py _names_a_value), told apart here and
; not by walking up from each identifier (tree-sitter finds a parent from the root)
(scoped_identifier (identifier) @not_value)
(macro_invocation (identifier) @not_value)
(closure_parameters (identifier) @not_value)
(closure_parameters (parameter (identifier) @not_value))
(index_expression) @index
(call_expression
  function: (field_expression
    field: (field_identifier) @method
    (#any-of? @method "@@unchecked_index_methods@@"))) @offset_call

; What an `unsafe` context in a kernel is used for (rule unsafe_in_kernel). Each match is
; one candidate; the rule decides (raw-pointer names, unsafe functions of the file) and
; assigns it to the innermost enclosing `unsafe { .. }` block or `unsafe fn`.

; unsafe { .. }
(unsafe_block) @block

; `*expr`: a dereference; unsafe when expr is a raw pointer.
(unary_expression "*" (_) @deref_operand) @deref

; `recv.method(..)`: raw-pointer methods (`p.add(i)`, `p.write(v)`) and unsafe methods
; (`xs.get_unchecked(i)`).
(call_expression
  function: (field_expression value: (_) @receiver field: (field_identifier) @method)) @method_call

; `f(..)` / `path::f(..)`: calls of unsafe functions.
(call_expression
  function: [(identifier) @callee
             (scoped_identifier name: (identifier) @callee)] @callee_path) @call

; asm!(..): inline assembly.
(macro_invocation
  macro: [(identifier) @macro (scoped_identifier name: (identifier) @macro)]
  (#any-of? @macro "asm")) @asm

; `let p = ..;` bindings, to follow raw pointers derived from a parameter.
(let_declaration pattern: (identifier) @let_name) @let

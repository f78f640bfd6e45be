; Kernel launch sites. Macro bodies are token trees; analysis/launches.py re-parses them.

; offload! { kernel = .., workgroup_dim = .., thread_dim = .., args = (..) }
; launch!(module.kernel<<<grid, block, smem, stream>>>(args..))   (Rust-CUDA)
(macro_invocation
  macro: [(identifier) @macro
          (scoped_identifier name: (identifier) @macro)]
  (#any-of? @macro "offload" "launch")
  (token_tree) @tokens) @launch

; core::intrinsics::offload(kernel, [..], [..], (args,))  (also std::intrinsics::, intrinsics::)
(call_expression
  function: (scoped_identifier name: (identifier) @fn (#eq? @fn "offload"))
  arguments: (arguments) @args) @call

; bare `offload(kernel, ..)` after `use core::intrinsics::offload;`
(call_expression
  function: (identifier) @fn (#eq? @fn "offload")
  arguments: (arguments) @args) @bare_call

; the same with a turbofish, as rustc's own tests write it:
; core::intrinsics::offload::<_, _, ()>(kernel, [..], [..], (args,))  and bare offload::<..>(..)
(call_expression
  function: (generic_function
    function: (scoped_identifier name: (identifier) @fn (#eq? @fn "offload")))
  arguments: (arguments) @args) @call

(call_expression
  function: (generic_function
    function: (identifier) @fn (#eq? @fn "offload"))
  arguments: (arguments) @args) @bare_call

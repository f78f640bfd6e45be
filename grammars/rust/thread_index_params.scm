; Kernel parameters whose value IS the GPU thread / workgroup index (attribute words from
; the ecosystem profiles, filled in for the placeholders).
; Used by analysis/indexing.py (thread-index dataflow) beside thread_index.scm.

; rust-gpu: #[spirv(global_invocation_id)] id: UVec3, #[spirv(local_invocation_index)] i: u32, ...
(parameters
  (attribute_item
    (attribute
      (identifier) @attr (#eq? @attr "spirv")
      arguments: (token_tree
        (identifier) @builtin
        (#any-of? @builtin "@@index_param_words@@"))))
  .
  (parameter pattern: (identifier) @thread_index_param))

; the subset that differs between workgroups (see global_index.scm)
(parameters
  (attribute_item
    (attribute
      (identifier) @attr (#eq? @attr "spirv")
      arguments: (token_tree
        (identifier) @builtin
        (#any-of? @builtin "@@global_param_words@@"))))
  .
  (parameter pattern: (identifier) @global_index_param))

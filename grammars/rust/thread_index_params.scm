; Kernel parameters whose value IS the GPU thread / workgroup index.
; Used by analysis/indexing.py (thread-index dataflow) beside thread_index.scm.

; rust-gpu: #[spirv(global_invocation_id)] id: UVec3, #[spirv(local_invocation_index)] i: u32, ...
(parameters
  (attribute_item
    (attribute
      (identifier) @attr (#eq? @attr "spirv")
      arguments: (token_tree
        (identifier) @builtin
        (#any-of? @builtin
          "global_invocation_id" "local_invocation_id" "local_invocation_index"
          "workgroup_id" "subgroup_id" "subgroup_local_invocation_id"))))
  .
  (parameter pattern: (identifier) @thread_index_param))

; the subset that differs between workgroups (see global_index.scm)
(parameters
  (attribute_item
    (attribute
      (identifier) @attr (#eq? @attr "spirv")
      arguments: (token_tree
        (identifier) @builtin
        (#any-of? @builtin "global_invocation_id" "workgroup_id"))))
  .
  (parameter pattern: (identifier) @global_index_param))

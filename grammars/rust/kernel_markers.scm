; Attributes that mark a function as a GPU kernel. Each match captures the whole
; attribute item as @attr and the marker name as @marker; the kernel is the function
; item the attribute applies to. Classification by marker name is in
; server/offload_ls/analysis/kernels.py (ECOSYSTEM_OF_MARKER).

; #[offload_kernel]  #[rustc_offload_kernel]  #[kernel]  #[cuda_std::kernel]
(attribute_item
  (attribute
    [(identifier) @marker
     (scoped_identifier name: (identifier) @marker)]
    (#any-of? @marker "offload_kernel" "rustc_offload_kernel" "kernel"))) @attr

; #[cfg_attr(<cfg>, rustc_offload_kernel)] and friends. The marker must follow a comma:
; in #[cfg_attr(kernel, inline)] the first `kernel` is the cfg predicate, not a marker.
(attribute_item
  (attribute
    (identifier) @cfg_attr (#eq? @cfg_attr "cfg_attr")
    arguments: (token_tree
      "," . (identifier) @marker
      (#any-of? @marker "offload_kernel" "rustc_offload_kernel" "kernel")))) @attr

; rust-gpu: #[spirv(compute(threads(64)))], and the OpenCL execution model's
; #[spirv(kernel(threads(32)))] (buffers as #[spirv(cross_workgroup)] slices)
(attribute_item
  (attribute
    (identifier) @marker (#eq? @marker "spirv")
    arguments: (token_tree (identifier) @stage (#any-of? @stage "compute" "kernel")))) @attr

; rust-gpu under a cfg: #[cfg_attr(feature = "dim3", spirv(compute(threads(4, 4, 4))))]
; (shader crates built for the CPU too; khal's kernels pick their block shape by feature)
(attribute_item
  (attribute
    (identifier) @cfg_attr (#eq? @cfg_attr "cfg_attr")
    arguments: (token_tree
      "," . (identifier) @marker (#eq? @marker "spirv")
      . (token_tree (identifier) @stage (#any-of? @stage "compute" "kernel"))))) @attr

; CubeCL: #[cube(launch)] / #[cube(launch_unchecked)]
(attribute_item
  (attribute
    (identifier) @marker (#eq? @marker "cube")
    arguments: (token_tree (identifier) @mode (#any-of? @mode "launch" "launch_unchecked")))) @attr

; Expressions whose value depends on the GPU thread / block index.
; Used by the rules unindexed_kernel_write and unchecked_thread_index.

; core::arch::nvptx (_thread_idx_x, _block_idx_x, _block_dim_x, ...), core::arch::amdgpu
; (workitem_id_x, workgroup_id_x), Rust-CUDA cuda_std::thread (index_1d, thread_idx_x,
; block_idx_x, ...), krnl (global_id, thread_id, group_id).
(call_expression
  function: [(identifier) @fn
             (scoped_identifier name: (identifier) @fn)
             (field_expression field: (field_identifier) @fn)]
  (#any-of? @fn
    "_thread_idx_x" "_thread_idx_y" "_thread_idx_z"
    "_block_idx_x" "_block_idx_y" "_block_idx_z"
    "workitem_id_x" "workitem_id_y" "workitem_id_z"
    "workgroup_id_x" "workgroup_id_y" "workgroup_id_z"
    "index_1d" "index_2d" "index_3d"
    "thread_idx_x" "thread_idx_y" "thread_idx_z" "thread_idx"
    "block_idx_x" "block_idx_y" "block_idx_z" "block_idx"
    "global_id" "global_index" "thread_id" "group_id" "global_invocation_id")) @thread_index

; CubeCL position constants
((identifier) @thread_index
  (#any-of? @thread_index
    "ABSOLUTE_POS" "ABSOLUTE_POS_X" "ABSOLUTE_POS_Y" "ABSOLUTE_POS_Z"
    "UNIT_POS" "UNIT_POS_X" "UNIT_POS_Y" "UNIT_POS_Z"
    "CUBE_POS" "CUBE_POS_X" "CUBE_POS_Y" "CUBE_POS_Z"))

; The subset of thread_index.scm that differs between workgroups / blocks: block (workgroup)
; indices and whole-grid positions. An index computed only from the thread index WITHIN a
; block (_thread_idx_x, workitem_id_x, UNIT_POS) is bounded by the block size; one computed
; from these grows with the grid. Used by the rule unchecked_thread_index.
(call_expression
  function: [(identifier) @fn
             (scoped_identifier name: (identifier) @fn)
             (field_expression field: (field_identifier) @fn)]
  (#any-of? @fn
    "_block_idx_x" "_block_idx_y" "_block_idx_z"
    "workgroup_id_x" "workgroup_id_y" "workgroup_id_z"
    "block_idx_x" "block_idx_y" "block_idx_z" "block_idx"
    "index_1d" "index_2d" "index_3d"
    "global_id" "global_index" "group_id" "global_invocation_id")) @global_index

; CubeCL positions in the whole grid
((identifier) @global_index
  (#any-of? @global_index
    "ABSOLUTE_POS" "ABSOLUTE_POS_X" "ABSOLUTE_POS_Y" "ABSOLUTE_POS_Z"
    "CUBE_POS" "CUBE_POS_X" "CUBE_POS_Y" "CUBE_POS_Z"))

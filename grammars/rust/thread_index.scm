; Expressions whose value depends on the GPU thread / block index. The names come from the
; ecosystem profiles (server/offload_ls/analysis/ecosystems/): every placeholder "@@..@@" is
; replaced by their quoted names when the query is compiled.
; Used by analysis/indexing.py (thread-index dataflow) and the rules that follow it.

; _thread_idx_x(), core::arch::nvptx::_block_idx_x(), thread::index_1d(), kernel.global_id()
(call_expression
  function: [(identifier) @fn
             (scoped_identifier name: (identifier) @fn)
             (field_expression field: (field_identifier) @fn)]
  (#any-of? @fn "@@thread_index_fns@@")) @thread_index

; Linear1D::index(), thread::index(): a generic name, recognised only with a path
(call_expression
  function: (scoped_identifier name: (identifier) @fn)
  arguments: (arguments . ")")
  (#any-of? @fn "@@thread_index_path_fns@@")) @thread_index

; CubeCL's positions: ABSOLUTE_POS, UNIT_POS_X, ..
((identifier) @thread_index
  (#any-of? @thread_index "@@thread_index_consts@@"))

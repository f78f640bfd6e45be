; The subset of thread_index.scm that differs between blocks / workgroups: block indexes and
; positions in the whole launch (the ecosystem profiles' names, filled in for the
; placeholders). An index computed only from the thread index WITHIN a block is bounded by
; the block size; one computed from these grows with the grid.
(call_expression
  function: [(identifier) @fn
             (scoped_identifier name: (identifier) @fn)
             (field_expression field: (field_identifier) @fn)]
  (#any-of? @fn "@@global_index_fns@@")) @global_index

(call_expression
  function: (scoped_identifier name: (identifier) @fn)
  arguments: (arguments . ")")
  (#any-of? @fn "@@global_index_path_fns@@")) @global_index

((identifier) @global_index
  (#any-of? @global_index "@@global_index_consts@@"))

; Names that `use` brings into scope, with the path they come from. A name imported from
; another crate shadows std's (`use heapless::Vec;`): heap_owning_kernel_arg reads these
; (analysis/rules/heap_owning_kernel_arg.py, shadowed_names).
(use_declaration argument: (scoped_identifier path: (_) @use_path name: (identifier) @use_name))
(use_declaration argument: (use_as_clause path: (_) @use_path alias: (identifier) @use_name))
(use_declaration
  argument: (scoped_use_list path: (_) @use_path
    list: (use_list [(identifier) @use_name
                     (use_as_clause alias: (identifier) @use_name)])))

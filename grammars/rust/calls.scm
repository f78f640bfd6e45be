; Function calls by name, to follow kernels into the functions they call (device code).
(call_expression
  function: [(identifier) @callee
             (scoped_identifier name: (identifier) @callee)])

; `f::<T>(..)`: a generic function called by plain name (analysis/units/call_args.py: what a
; helper is passed; not followed into device code)
(call_expression
  function: (generic_function function: (identifier) @generic_callee))

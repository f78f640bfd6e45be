; Function calls by name, to follow kernels into the functions they call (device code).
(call_expression
  function: [(identifier) @callee
             (scoped_identifier name: (identifier) @callee)])

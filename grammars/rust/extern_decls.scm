; Host-side declarations of kernels: `unsafe extern "C" { fn k(..); }`.
(foreign_mod_item
  body: (declaration_list
    (function_signature_item
      name: (identifier) @name
      parameters: (parameters) @params) @decl))

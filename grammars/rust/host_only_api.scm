; Uses of APIs that need `std` / `alloc`, for the rule host_only_api_in_kernel.
; The rule keeps only the captures inside device code (analysis/device_code.py).

; Paths rooted at `std` or `alloc`: std::f32::consts::PI, ::std::vec::Vec, alloc::string::String
(scoped_identifier
  path: (identifier) @root (#any-of? @root "std" "alloc"))
(scoped_identifier
  !path
  name: (identifier) @root (#any-of? @root "std" "alloc"))
(scoped_type_identifier
  path: (identifier) @root (#any-of? @root "std" "alloc"))
(scoped_use_list
  path: (identifier) @root (#any-of? @root "std" "alloc"))

; Printing and allocating macros: println!("..")  vec![..]  format!(..)
(macro_invocation
  macro: (identifier) @macro
  (#any-of? @macro "println" "print" "eprintln" "eprint" "dbg" "format" "vec"))

; Heap-owning types, as types (Vec<f32>) and as path roots (Vec::new, String::from)
((type_identifier) @type
  (#any-of? @type "Vec" "Box" "String" "Rc" "Arc" "HashMap" "HashSet" "BTreeMap" "BTreeSet" "VecDeque"))
(scoped_identifier
  path: (identifier) @type
  (#any-of? @type "Vec" "Box" "String" "Rc" "Arc" "HashMap" "HashSet" "BTreeMap" "BTreeSet" "VecDeque"))

; Allocating conversions: x.to_string()  s.to_vec()  v.to_owned()
(call_expression
  function: (field_expression
    field: (field_identifier) @method
    (#any-of? @method "to_string" "to_vec" "to_owned")))

; Float methods of `std` (the C math library): x.sqrt()  a.mul_add(b, c)  (std_names.py STD_FLOAT_METHODS)
(call_expression
  function: (field_expression
    field: (field_identifier) @float_method
    (#any-of? @float_method "sqrt" "cbrt" "powf" "powi" "exp" "exp2" "exp_m1" "ln" "log" "log2" "log10" "ln_1p" "sin" "cos" "tan" "sin_cos" "asin" "acos" "atan" "atan2" "sinh" "cosh" "tanh" "asinh" "acosh" "atanh" "hypot" "mul_add")))

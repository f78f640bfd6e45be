; Casts that turn a shared reference into a mutable raw pointer, for the rule
; aliased_launch_args. The rule checks that @ref is `&x` (not `&mut x`) and @const_ptr is
; `*const T` (not `*mut T`).

; &x as *const T as *mut T      (&x as *const _) as *mut _
(type_cast_expression
  value: [(type_cast_expression value: (reference_expression) @ref type: (pointer_type) @const_ptr)
          (parenthesized_expression
            (type_cast_expression value: (reference_expression) @ref type: (pointer_type) @const_ptr))]
  type: (pointer_type (mutable_specifier))) @cast

; (&x as *const T).cast_mut()
(call_expression
  function: (field_expression
    value: (parenthesized_expression
      (type_cast_expression value: (reference_expression) @ref type: (pointer_type) @const_ptr))
    field: (field_identifier) @method (#eq? @method "cast_mut"))) @cast

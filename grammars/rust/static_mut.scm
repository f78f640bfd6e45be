; `static mut` items, at module level or inside a function body.
; Used by the rules static_mut_in_kernel and unsafe_in_kernel. @name: the declared name.
(static_item (mutable_specifier) name: (identifier) @name) @static

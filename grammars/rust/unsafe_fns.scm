; Functions of the file that are unsafe to call: `unsafe fn` items and functions declared
; in `extern` blocks (rule unsafe_in_kernel). @name: the function's name.
(function_item (function_modifiers "unsafe") name: (identifier) @name)
(foreign_mod_item body: (declaration_list (function_signature_item name: (identifier) @name)))

; Functions of the file that are safe to call, to tell them from unknown callees.
(function_item name: (identifier) @any_fn)

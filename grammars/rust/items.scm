; Items the crate index reads (analysis/units.py, analysis/crate_index.py): constants and
; immutable statics with their values (constant folding), type aliases, `static` items of
; every kind (shared / workgroup memory is a `static mut` with an attribute), `mod`
; declarations, and attribute paths (which ecosystem's crate a file uses).
(const_item name: (identifier) @const_name value: (_) @const_value) @const
(static_item name: (identifier) @static_name) @static_item
(type_item name: (type_identifier) @alias_name type: (_) @alias_type) @alias
(mod_item name: (identifier) @mod_name) @mod
(attribute (scoped_identifier) @attr_path)
(extern_crate_declaration name: (identifier) @extern_crate)

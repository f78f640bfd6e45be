; Names the file defines itself (a local `struct Vec` or `macro_rules! vec` is not std's),
; for host_only_api_in_kernel. @defined: the defined name.
(struct_item name: (type_identifier) @defined)
(enum_item name: (type_identifier) @defined)
(type_item name: (type_identifier) @defined)
(macro_definition name: (identifier) @defined)

; Nodes that per-item facts (analysis/units.py) are read from, found in the same pass as the
; other queries of that module: every function item (name, body, calls, device cfg), every
; `use` declaration (names imported from other crates, grammars/rust/use_imports.scm) and
; every attribute (kernel markers, grammars/rust/kernel_markers.scm, run on the attributes
; whose text can hold one).
(function_item) @fn
(use_declaration) @use
(attribute_item) @attr

; Nodes that per-item facts (analysis/units.py) are read from, found in the same pass as the
; other queries of that module: every function item (name, body, calls, device cfg) and every
; `use` declaration (names imported from other crates, grammars/rust/use_imports.scm).
(function_item) @fn
(use_declaration) @use

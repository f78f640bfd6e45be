; Types that own or hide host heap memory, for heap_owning_kernel_arg. @heap is the
; offending type node, @name its last path segment; the rule keeps the outermost @heap of
; a parameter type, checks a qualified path's root (std / alloc) and sorts by @name:
; buffers (Vec, String, ..), pointers (Box, Rc, Arc), collections (HashMap, ..).
(generic_type
  type: [(type_identifier) @name
         (scoped_type_identifier name: (type_identifier) @name)]
  (#any-of? @name
    "Vec" "VecDeque" "BinaryHeap" "String" "CString" "OsString" "PathBuf"
    "Box" "Rc" "Arc"
    "HashMap" "HashSet" "BTreeMap" "BTreeSet" "LinkedList")) @heap

([(type_identifier) @name
  (scoped_type_identifier name: (type_identifier) @name)] @heap
  (#any-of? @name
    "Vec" "VecDeque" "BinaryHeap" "String" "CString" "OsString" "PathBuf"
    "Box" "Rc" "Arc"
    "HashMap" "HashSet" "BTreeMap" "BTreeSet" "LinkedList"))

; Trait objects: `&dyn Trait`, `Box<dyn Trait>` (reported as the Box).
(dynamic_type) @heap @dyn

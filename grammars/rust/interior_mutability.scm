; Interior-mutability wrappers, for interior_mutability_kernel_arg. @cell is the type node,
; @name its last path segment. Atomics (AtomicU32, ..) are deliberately absent: they are
; the GPU's legitimate shared counters.
(generic_type
  type: [(type_identifier) @name
         (scoped_type_identifier name: (type_identifier) @name)]
  (#any-of? @name
    "Cell" "RefCell" "UnsafeCell" "OnceCell" "LazyCell" "SyncUnsafeCell"
    "Mutex" "RwLock" "OnceLock" "LazyLock")) @cell

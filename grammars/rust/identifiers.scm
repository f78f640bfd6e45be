; Every identifier (also those inside macro token trees, e.g. `addr_of_mut!(COUNTER)`).
; static_mut_in_kernel resolves them against the file's `static mut` items.
(identifier) @id

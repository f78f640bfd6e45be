"""GPU layer: kernel resources, launching a built binary, the runtime's transfer log,
and portable bundles. Knows nothing of LSP."""

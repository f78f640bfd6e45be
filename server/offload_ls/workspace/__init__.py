"""Workspace layer: crates, Cargo.toml metadata, file discovery. Reads files; knows nothing of LSP."""

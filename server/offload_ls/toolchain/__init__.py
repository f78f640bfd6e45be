"""Toolchain layer: finds rustc/cargo/LLVM/libomptarget/GPUs, runs the offload passes as
argv lists with timeouts, parses rustc JSON diagnostics and the host IR's transfer plan.
Knows nothing of LSP (never imports pygls/lsprotocol)."""

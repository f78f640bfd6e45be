-- offload-ls for Neovim 0.11+ (`vim.lsp.config` / `vim.lsp.enable`).
--
-- With editors/neovim on 'runtimepath' (see editors/neovim/README.md), this file is the
-- config named "offload_ls"; `vim.lsp.enable("offload_ls")` starts offload-ls for Rust
-- buffers, beside rust-analyzer. Override any field with
-- `vim.lsp.config("offload_ls", { ... })` before enabling it; tables are merged.
--
-- Settings are the ones of server/offload_ls/settings.py (section "offload-ls"). Neovim has
-- no workspace-trust concept: offload-ls compiles and runs a crate (build scripts, proc
-- macros, the program) only when its folder is listed in `trustedWorkspaces` (absolute
-- paths, or "*" for every folder). Until then you get the lints, hover, quick fixes, code
-- lenses, and no compile on save.

---@type vim.lsp.Config
return {
  cmd = { "offload-ls" },
  filetypes = { "rust" },
  root_markers = { "Cargo.toml", ".git" },
  -- The client-side commands this plugin implements (rust-analyzer's `experimental.commands`
  -- convention): the server then offers the "Show PTX" lens (lua/offload_ls/assembly.lua).
  capabilities = vim.tbl_deep_extend("force", vim.lsp.protocol.make_client_capabilities(), {
    experimental = { commands = { commands = { "offload-ls.showAssembly" } } },
  }),
  settings = {
    ["offload-ls"] = {
      -- rule name -> "allow" | "warn" | "deny" (overrides Cargo.toml
      -- [package|workspace.metadata.offload-ls]); `offload-ls rules` lists the rules.
      rules = vim.empty_dict(),
      -- Folders whose crates may be compiled and run, e.g. { "/home/me/src/my-kernels" }.
      trustedWorkspaces = {},
      -- Offload check (device pass + host pass) on save, in trusted folders only.
      checkOnSave = true,
      -- After a clean check, read the transfer plan from the host IR (inlay hints at launches).
      transferPlan = true,
      -- Lint the crate's unopened .rs files too.
      scanWorkspace = true,
      -- 0: analyse each edit as it arrives (edits during an analysis are coalesced)
      debounceMs = 0,
      -- Unset keys take the server's defaults: maxFileBytes, rustc, cargo, gpuTarget
      -- ("nvptx64-nvidia-cuda" | "amdgcn-amd-amdhsa"), gpuArch ("sm_90", "gfx90a", ..),
      -- device (OpenMP device number), deviceImage ("gpu" | "host" | "both"),
      -- compileTimeoutS, runTimeoutS, runTarget, runTargets (docs/remote.md).
    },
  },
  -- Send the settings at `initialize` too, so the first diagnostics already use them
  -- (otherwise they come with `workspace/configuration`, a moment later).
  before_init = function(params, config)
    params.initializationOptions = config.settings
  end,
}

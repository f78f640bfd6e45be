-- offload-ls user commands (:OffloadBuild, :OffloadRun, :OffloadRunReport, :OffloadDoctor,
-- :OffloadCancel, :OffloadAsm); see lua/offload_ls/init.lua. Set vim.g.loaded_offload_ls = 1 before
-- plugins load to skip this file.
if vim.g.loaded_offload_ls then
  return
end
vim.g.loaded_offload_ls = 1

require("offload_ls").setup()

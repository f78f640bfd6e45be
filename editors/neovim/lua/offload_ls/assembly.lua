-- offload-ls kernel assembly view for Neovim: a kernel's PTX (or LLVM IR, SASS, AMDGPU
-- assembly) in a read-only scratch buffer beside the source, with the lines of one side
-- highlighted for the cursor's line on the other.
--
-- `:OffloadAsm [ptx|llvm-ir|sass|amdgcn]` and the server's "Show PTX" code lens (command
-- `offload-ls.showAssembly`, which the server offers only to clients that declare it in
-- `capabilities.experimental.commands.commands`; lsp/offload_ls.lua does) send
-- `offload-ls.assembly` (server/offload_ls/lsp/assembly.py): the whole module's listing, the
-- kernel's line range and `map`, pairs {listing line, source line}, both 0-based.

local M = {}

M.namespace = vim.api.nvim_create_namespace("offload_ls_asm")
M.command = "offload-ls.showAssembly"
-- listing buffer -> { source = bufnr, to_listing = { [src] = { lines } }, to_source = { [line] = src } }
M.views = {}
-- The last result, for scripts and tests.
M.last = nil

local EXT = { ptx = "ptx", ["llvm-ir"] = "ll", sass = "sass", amdgcn = "s" }
local FILETYPE = { ptx = "asm", ["llvm-ir"] = "llvm", sass = "asm", amdgcn = "asm" }

local function highlight(buf, lines)
  vim.api.nvim_buf_clear_namespace(buf, M.namespace, 0, -1)
  for _, line in ipairs(lines) do
    pcall(vim.api.nvim_buf_set_extmark, buf, M.namespace, line, 0, { line_hl_group = "Visual", priority = 200 })
  end
end

--- Highlighted lines (0-based) of `buf`, ascending: what the view shows now.
function M.highlighted(buf)
  local out = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, M.namespace, 0, -1, {})) do
    out[#out + 1] = mark[2]
  end
  table.sort(out)
  return out
end

local function cursor_line(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    return vim.api.nvim_win_get_cursor(win)[1] - 1
  end
  return nil
end

--- The cursor moved in the source buffer `src`: highlight its listing lines in every view.
function M.follow_source(src)
  local line = cursor_line(src)
  for lbuf, view in pairs(M.views) do
    if view.source == src and vim.api.nvim_buf_is_valid(lbuf) and line ~= nil then
      local lines = view.to_listing[line] or {}
      highlight(lbuf, lines)
      highlight(src, #lines > 0 and { line } or {})
      local win = vim.fn.win_findbuf(lbuf)[1]
      if win and lines[1] then
        vim.api.nvim_win_set_cursor(win, { lines[1] + 1, 0 })
      end
    end
  end
end

--- The cursor moved in the listing buffer `lbuf`: highlight the source line it came from.
function M.follow_listing(lbuf)
  local view = M.views[lbuf]
  local line = cursor_line(lbuf)
  if not view or line == nil then
    return
  end
  local src = view.to_source[line]
  highlight(view.source, src and { src } or {})
  highlight(lbuf, src and view.to_listing[src] or {})
  local win = src and vim.fn.win_findbuf(view.source)[1]
  if win then
    vim.api.nvim_win_call(win, function() vim.cmd(string.format("keepjumps normal! %dGzz", src + 1)) end)
  end
end

local function open_view(source_buf, args, result)
  local name = string.format("offload-ls://asm/%s.%s.%s", vim.fn.fnamemodify(vim.api.nvim_buf_get_name(source_buf), ":t"),
    result.kernel ~= vim.NIL and result.kernel or "module", EXT[result.format] or "txt")
  local lbuf = require("offload_ls").scratch(name)
  vim.bo[lbuf].modifiable = true
  vim.api.nvim_buf_set_lines(lbuf, 0, -1, false, vim.split(result.text, "\n", { plain = true, trimempty = true }))
  vim.bo[lbuf].modifiable = false
  vim.bo[lbuf].filetype = FILETYPE[result.format] or ""
  local view = { source = source_buf, to_listing = {}, to_source = {}, format = result.format }
  for _, pair in ipairs(result.map) do
    local l, s = pair[1], pair[2]
    view.to_source[l] = s
    view.to_listing[s] = view.to_listing[s] or {}
    table.insert(view.to_listing[s], l)
  end
  M.views[lbuf] = view
  local group = vim.api.nvim_create_augroup("offload_ls_asm_" .. lbuf, { clear = true })
  vim.api.nvim_create_autocmd("CursorMoved", { group = group, buffer = lbuf, callback = function() M.follow_listing(lbuf) end })
  vim.api.nvim_create_autocmd("CursorMoved", { group = group, buffer = source_buf, callback = function() M.follow_source(source_buf) end })
  vim.api.nvim_create_autocmd("BufWipeout", { group = group, buffer = lbuf, callback = function() M.views[lbuf] = nil end })
  local src_win = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_buf(src_win) ~= source_buf then
    src_win = vim.fn.win_findbuf(source_buf)[1] or src_win
  end
  local lwin = vim.fn.win_findbuf(lbuf)[1]
  if not lwin then
    vim.api.nvim_win_call(src_win, function()
      vim.cmd("rightbelow vsplit")
      lwin = vim.api.nvim_get_current_win()
    end)
    vim.api.nvim_win_set_buf(lwin, lbuf)
  end
  if result.entry ~= vim.NIL and result.entry ~= nil then
    vim.api.nvim_win_set_cursor(lwin, { result.entry[1] + 1, 0 })
    vim.api.nvim_win_call(lwin, function() vim.cmd("normal! zt") end)
  end
  vim.api.nvim_set_current_win(src_win)
  M.follow_source(source_buf)
  return lbuf
end

--- Ask the server for the listing of `args` ({uri, kernel?, format?}) and show it beside
--- the source buffer `bufnr`; `on_done(result, listing_buf)` afterwards (optional).
function M.show(args, bufnr, on_done)
  local offload = require("offload_ls")
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  offload.execute("offload-ls.assembly", { args }, bufnr, function(err, result)
    M.last = err and { ok = false, error = err.message } or result
    local lbuf = nil
    if not err and type(result) == "table" and result.ok == true then
      lbuf = open_view(bufnr, args, result)
    end
    if on_done then
      on_done(M.last, lbuf)
    end
  end)
end

function M.setup()
  vim.api.nvim_create_user_command("OffloadAsm", function(o)
    local buf = vim.api.nvim_get_current_buf()
    M.show({ uri = vim.uri_from_bufnr(buf), format = o.fargs[1] }, buf)
  end, {
    nargs = "?",
    complete = function() return { "ptx", "llvm-ir", "sass", "amdgcn" } end,
    desc = "offload-ls: the device assembly of this buffer's crate beside it [ptx|llvm-ir|sass|amdgcn]",
  })
  -- The "Show PTX" lens.
  vim.lsp.commands[M.command] = function(command, ctx)
    local bufnr = ctx and ctx.bufnr or 0
    M.show(command.arguments[1], bufnr)
  end
end

return M

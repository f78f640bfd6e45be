-- Neovim init for tests/editors/test_neovim.py: drives offload-ls through Neovim's own LSP
-- client, the shipped config (editors/neovim/lsp/offload_ls.lua) and the shipped plugin
-- (editors/neovim/plugin/offload_ls.lua), and writes what it saw as JSON.
--
-- The plan (JSON, path in $OFFLOAD_LS_NVIM_PLAN) gives:
--   rtp: editors/neovim; cmd: server argv; file: the .rs file to open; encoding: the one
--   position encoding to offer (or null for Neovim's default offer); settings: overrides of
--   the "offload-ls" section; setup_file + client_name: a Lua file that starts the client
--   itself (instead of the shipped config) and the client's name; scenario: "open"
--   (diagnostics and :OffloadRunReport only), "lint" (diagnostics, hover, code lenses, the
--   plugin's commands in an untrusted crate, the raw-pointer quick fix) or "run" (a
--   trusted crate: :OffloadRun, :OffloadRunReport, code lenses, :OffloadBuild host);
--   hover: { name = {line, col} } (0-based line, byte column; lint); timeout_ms: for each
--   wait; run_timeout_ms: for a build or run; out: where to write the JSON.
-- Every wait has a timeout; on a timeout or error the JSON has `error` and Neovim quits.

local ok_plan, plan = pcall(function()
  return vim.json.decode(table.concat(vim.fn.readfile(os.getenv("OFFLOAD_LS_NVIM_PLAN")), "\n"))
end)
if not ok_plan then
  io.stderr:write("cannot read the plan $OFFLOAD_LS_NVIM_PLAN: " .. tostring(plan) .. "\n")
  vim.cmd("cquit 2")
end
vim.opt.runtimepath:prepend(plan.rtp)

local out = { notifications = {}, publishes = {} }
local T = plan.timeout_ms

vim.notify = function(msg, level)
  table.insert(out.notifications, { msg = msg, level = level })
end

local function write_out()
  local f = assert(io.open(plan.out, "w"))
  f:write(vim.json.encode(out))
  f:close()
end

local function wait_for(what, cond)
  if not vim.wait(T, cond, 20) then
    error("timed out waiting for " .. what)
  end
end

local function diag_records(buf, client)
  local records = {}
  for _, d in ipairs(vim.diagnostic.get(buf, { namespace = vim.lsp.diagnostic.get_namespace(client.id) })) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(records, {
      code = d.code, source = d.source, message = d.message, severity = d.severity,
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      lsp_range = lsp.range,
    })
  end
  table.sort(records, function(a, b)
    if a.lnum ~= b.lnum then return a.lnum < b.lnum end
    return a.col < b.col
  end)
  return records
end

local lint_scenario, run_scenario, asm_scenario

vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(ev)
    local value = ev.data and ev.data.params and ev.data.params.value or {}
    out.progress = out.progress or {}
    table.insert(out.progress, { kind = value.kind, title = value.title, message = value.message })
  end,
})

local function main()
  -- The shipped config, as vim.lsp.config resolves it from 'runtimepath'.
  local shipped = vim.lsp.config.offload_ls
  out.shipped = {
    cmd = shipped.cmd, filetypes = shipped.filetypes, root_markers = shipped.root_markers,
    settings = shipped.settings, has_before_init = type(shipped.before_init) == "function",
  }
  out.user_commands = {}
  for name, _ in pairs(vim.api.nvim_get_commands({})) do
    if name:match("^Offload") then
      table.insert(out.user_commands, name)
    end
  end
  table.sort(out.user_commands)

  -- Every publishDiagnostics, in order (to wait for the one of a buffer version).
  local on_publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
  vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
    table.insert(out.publishes, { uri = result.uri, version = result.version, count = #result.diagnostics })
    return on_publish(err, result, ctx, config)
  end

  local client_name = "offload_ls"
  if plan.setup_file ~= nil and plan.setup_file ~= vim.NIL then
    -- A user's own setup (the README's vim.lsp.start snippet for Neovim 0.8-0.10).
    dofile(plan.setup_file)
    client_name = plan.client_name
  else
    local shipped_before_init = shipped.before_init
    vim.lsp.config("offload_ls", {
      cmd = plan.cmd ~= vim.NIL and plan.cmd or nil, -- null: the shipped { "offload-ls" }
      settings = { ["offload-ls"] = plan.settings },
      before_init = function(params, config)
        shipped_before_init(params, config)
        out.initialization_options = params.initializationOptions
        if plan.encoding ~= vim.NIL and plan.encoding ~= nil then
          params.capabilities.general.positionEncodings = { plan.encoding }
        end
      end,
    })
    vim.lsp.enable("offload_ls")
  end
  vim.cmd.edit(vim.fn.fnameescape(plan.file))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  out.filetype = vim.bo[buf].filetype

  local client
  wait_for("the " .. client_name .. " client", function()
    client = vim.lsp.get_clients({ bufnr = buf, name = client_name })[1]
    return client ~= nil and client.initialized
  end)
  out.client_name = client.name
  out.root_dir = client.root_dir
  out.offset_encoding = client.offset_encoding
  out.execute_commands = client.server_capabilities.executeCommandProvider.commands

  local function published_current()
    local v = vim.lsp.util.buf_versions[buf]
    for _, p in ipairs(out.publishes) do
      if p.uri == uri and p.version == v then
        return true
      end
    end
    return false
  end

  -- 1. Diagnostics of the opened text.
  wait_for("diagnostics of the opened buffer", published_current)
  out.opened_version = vim.lsp.util.buf_versions[buf]
  out.diagnostics = diag_records(buf, client)

  if plan.scenario == "run" then
    return run_scenario(buf, uri, client, published_current)
  elseif plan.scenario == "asm" then
    return asm_scenario(buf, uri, client)
  elseif plan.scenario == "open" then
    -- Diagnostics only, and one plugin command (found by the server's commands, whatever
    -- the client's name).
    local offload = require("offload_ls")
    vim.cmd("OffloadRunReport")
    wait_for("OffloadRunReport", function() return offload.last_result["offload-ls.showRunReport"] ~= nil end)
    out.commands = { OffloadRunReport = offload.last_result["offload-ls.showRunReport"] }
    -- Code lenses shown by the README's LspAttach autocommand, if the setup has it.
    vim.wait(T, function() return #vim.lsp.codelens.get(buf) > 0 end, 20)
    out.shown_codelens = {}
    for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
      table.insert(out.shown_codelens, lens.command and lens.command.title or vim.NIL)
    end
    out.inlay_hints_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = buf })
    return
  end
  return lint_scenario(buf, uri, client, published_current)
end

lint_scenario = function(buf, uri, client, published_current)
  -- 2. Hover with the cursor where a user would put it.
  out.hovers = {}
  for name, pos in pairs(plan.hover) do
    vim.api.nvim_win_set_cursor(0, { pos[1] + 1, pos[2] })
    local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
    local res = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, T)
    local r = res and res[client.id]
    out.hovers[name] = { position = params.position, result = r and r.result, err = r and r.err }
  end

  -- 3. Code lenses.
  local res = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", { textDocument = { uri = uri } }, T)
  out.codelens = res and res[client.id] and res[client.id].result or vim.NIL

  -- 4. The plugin's commands.
  local offload = require("offload_ls")
  out.commands = {}
  local function run_ex(ex, lsp_command)
    offload.last_result[lsp_command] = nil
    vim.cmd(ex)
    wait_for(ex, function() return offload.last_result[lsp_command] ~= nil end)
    out.commands[ex] = offload.last_result[lsp_command]
  end
  run_ex("OffloadRunReport", "offload-ls.showRunReport")
  run_ex("OffloadBuild", "offload-ls.build")
  run_ex("OffloadRun", "offload-ls.run")
  run_ex("OffloadCancel", "offload-ls.cancel")
  run_ex("OffloadDoctor", "offload-ls.doctor")
  out.doctor_buffer = vim.api.nvim_buf_get_lines(vim.fn.bufnr("offload-ls://doctor"), 0, 3, false)
  -- A code lens's command goes through vim.lsp.commands to the same display.
  offload.last_result["offload-ls.build"] = nil
  for _, lens in ipairs(out.codelens ~= vim.NIL and out.codelens or {}) do
    if lens.command and lens.command.title == "Build for GPU" then
      client:exec_cmd(lens.command, { bufnr = buf })
      break
    end
  end
  wait_for("the code lens command", function() return offload.last_result["offload-ls.build"] ~= nil end)
  out.codelens_build = offload.last_result["offload-ls.build"]
  vim.api.nvim_set_current_buf(buf)

  -- 5. The quick fix for raw_pointer_kernel_param, applied as vim.lsp.buf.code_action would.
  local target
  for _, d in ipairs(vim.diagnostic.get(buf, { namespace = vim.lsp.diagnostic.get_namespace(client.id) })) do
    if d.code == "raw_pointer_kernel_param" then
      target = d
    end
  end
  if not target then
    error("no raw_pointer_kernel_param diagnostic")
  end
  vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = { target.user_data.lsp }, only = { "quickfix" } }
  res = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, T)
  local actions = res and res[client.id] and res[client.id].result or {}
  out.code_actions = {}
  for _, a in ipairs(actions) do
    table.insert(out.code_actions, { title = a.title, kind = a.kind, isPreferred = a.isPreferred })
  end
  if not actions[1] or not actions[1].edit then
    error("no quick fix with an edit")
  end
  vim.lsp.util.apply_workspace_edit(actions[1].edit, client.offset_encoding)
  out.fixed_lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)

  -- 6. The server saw the edit (incremental didChange in the negotiated encoding).
  wait_for("diagnostics of the fixed buffer", published_current)
  out.fixed_version = vim.lsp.util.buf_versions[buf]
  out.diagnostics_after_fix = diag_records(buf, client)
end

-- A trusted crate: :OffloadRun builds and runs it (host image without a GPU), then the run
-- report, the code lenses with the last run's figures, and :OffloadBuild finding it fresh.
run_scenario = function(buf, uri, client, published_current)
  local offload = require("offload_ls")
  out.commands = {}
  local function run_ex(ex, lsp_command, timeout)
    offload.last_result[lsp_command] = nil
    vim.cmd(ex)
    if not vim.wait(timeout or T, function() return offload.last_result[lsp_command] ~= nil end, 50) then
      error("timed out waiting for " .. ex)
    end
    out.commands[ex] = offload.last_result[lsp_command]
  end
  local function lines_of(name)
    local b = vim.fn.bufnr("offload-ls://" .. name)
    return b ~= -1 and vim.api.nvim_buf_get_lines(b, 0, -1, false) or vim.NIL
  end
  run_ex("OffloadRun", "offload-ls.run", plan.run_timeout_ms)
  out.run_buffer = lines_of("run")
  -- From the run buffer, the commands still mean the crate of the file.
  vim.api.nvim_set_current_buf(vim.fn.bufnr("offload-ls://run"))
  run_ex("OffloadRunReport", "offload-ls.showRunReport")
  out.report_buffer = lines_of("run-report")
  vim.api.nvim_set_current_buf(buf)
  local res = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", { textDocument = { uri = uri } }, T)
  out.codelens = res and res[client.id] and res[client.id].result or vim.NIL
  run_ex("OffloadBuild host", "offload-ls.build", plan.run_timeout_ms)
  out.build_buffer = lines_of("build")
  run_ex("OffloadProfile", "offload-ls.profile", plan.run_timeout_ms)
  out.profile_buffer = lines_of("profile")
  res = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", { textDocument = { uri = uri } }, T)
  out.codelens_after_profile = res and res[client.id] and res[client.id].result or vim.NIL
end

-- The "Show PTX" lens on the kernel at plan.kernel_line (run as a user does: cursor on the
-- line, vim.lsp.codelens.run(), "Show PTX" chosen in vim.ui.select), then the cursor on
-- plan.line in the source and on the first PTX line that came from it.
asm_scenario = function(buf, uri, client)
  local assembly = require("offload_ls.assembly")
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_cursor(win, { plan.kernel_line, 0 })
  vim.lsp.codelens.refresh({ bufnr = buf })
  wait_for("code lenses", function()
    for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
      if lens.command and lens.command.title == "Show PTX" then
        return true
      end
    end
    return false
  end)
  out.asm = { offered = {} }
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(out.asm.offered, title)
      if title:match("Show PTX") then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  vim.lsp.codelens.run()
  if not vim.wait(plan.run_timeout_ms, function() return assembly.last ~= nil end, 50) then
    error("timed out waiting for the assembly view")
  end
  local lbuf = nil
  for b, _ in pairs(assembly.views) do
    lbuf = b
  end
  out.asm.ok = assembly.last.ok
  if not lbuf then
    out.asm.error = assembly.last.error
    return
  end
  out.asm.buffer = vim.api.nvim_buf_get_name(lbuf)
  out.asm.filetype = vim.bo[lbuf].filetype
  out.asm.modifiable = vim.bo[lbuf].modifiable
  local lwin = vim.fn.win_findbuf(lbuf)[1]
  local entry = assembly.last.entry
  out.asm.entry_line = vim.api.nvim_buf_get_lines(lbuf, entry[1], entry[1] + 1, false)[1]
  -- the listing's cursor: on the kernel (the source cursor's line, or its entry)
  out.asm.listing_cursor = vim.api.nvim_win_get_cursor(lwin)[1] - 1
  out.asm.entry = entry
  out.asm.current_is_source = vim.api.nvim_get_current_buf() == buf
  -- source -> listing
  vim.api.nvim_win_set_cursor(win, { plan.line, 0 })
  vim.api.nvim_exec_autocmds("CursorMoved", { buffer = buf })
  out.asm.listing_highlighted = assembly.highlighted(lbuf)
  out.asm.source_highlighted = assembly.highlighted(buf)
  -- listing -> source: the first highlighted listing line, then a line of no source
  vim.api.nvim_set_current_win(lwin)
  local target = out.asm.listing_highlighted[#out.asm.listing_highlighted]
  vim.api.nvim_win_set_cursor(lwin, { target + 1, 0 })
  vim.api.nvim_exec_autocmds("CursorMoved", { buffer = lbuf })
  out.asm.back_source_highlighted = assembly.highlighted(buf)
  out.asm.back_listing_highlighted = assembly.highlighted(lbuf)
  vim.api.nvim_win_set_cursor(lwin, { 1, 0 })
  vim.api.nvim_exec_autocmds("CursorMoved", { buffer = lbuf })
  out.asm.none_source_highlighted = assembly.highlighted(buf)
end

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    vim.schedule(function()
      local ok, err = xpcall(main, debug.traceback)
      if not ok then
        out.error = tostring(err)
      end
      write_out()
      vim.cmd("qa!")
    end)
  end,
})

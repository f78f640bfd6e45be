-- offload-ls commands for Neovim 0.8+: build, run, profile, run report, doctor, cancel.
--
-- Each command sends `workspace/executeCommand` to the offload-ls client of the current
-- buffer (server/offload_ls/lsp/commands.py gives the argument shapes) and shows the
-- result: messages through `vim.notify`, longer texts (run report, doctor report) in a
-- scratch buffer named "offload-ls://<what>". The program's output during a run streams
-- into "offload-ls://run" through the server's `offload-ls/runOutput` notification.
--
-- `setup()` (called by plugin/offload_ls.lua) also routes the server's code lenses ("Run on
-- GPU", "Build for GPU", "last run: ...") through these commands via `vim.lsp.commands`, so
-- `vim.lsp.codelens.run()` shows their results too. The kernel assembly view (:OffloadAsm and
-- the "Show PTX" lens) is lua/offload_ls/assembly.lua.

local M = {}

M.commands = {
  build = "offload-ls.build",
  run = "offload-ls.run",
  profile = "offload-ls.profile",
  report = "offload-ls.showRunReport",
  doctor = "offload-ls.doctor",
  cancel = "offload-ls.cancel",
}

-- The last result of each command (keyed by the LSP command name), for scripts and tests.
M.last_result = {}

local has_011 = vim.fn.has("nvim-0.11") == 1

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = "offload-ls" })
end

local function get_clients(bufnr)
  if vim.lsp.get_clients then -- 0.10+
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  return vim.lsp.get_active_clients({ bufnr = bufnr })
end

-- True if the server announced offload-ls's commands (whatever the client is named:
-- "offload_ls" with vim.lsp.config, anything with vim.lsp.start).
local function is_offload_ls(client)
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  local cmds = type(provider) == "table" and provider.commands or {}
  return vim.tbl_contains(cmds, M.commands.build)
end

--- The offload-ls client attached to `bufnr` (0: current buffer), or nil.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  for _, client in ipairs(get_clients(bufnr)) do
    if is_offload_ls(client) then
      return client
    end
  end
  -- A command run from a scratch buffer (e.g. the run report): any offload-ls client.
  for _, client in ipairs(get_clients(nil)) do
    if is_offload_ls(client) then
      return client
    end
  end
  return nil
end

local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- The scratch buffer named `bufname` (created unlisted, hidden when abandoned, no swap
--- file, when it does not exist yet). Returns the buffer number.
function M.scratch(bufname)
  local buf = vim.fn.bufnr(bufname)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, bufname)
    vim.bo[buf].bufhidden = "hide"
    vim.bo[buf].swapfile = false
  end
  return buf
end

--- A scratch buffer named "offload-ls://<name>", shown in a split; its lines replaced by
--- `lines` (or kept when `lines` is nil). Returns the buffer number.
function M.show_lines(name, lines, filetype)
  local buf = M.scratch("offload-ls://" .. name)
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  if lines then
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
  end
  if vim.fn.bufwinnr(buf) == -1 and #vim.api.nvim_list_uis() > 0 then
    local win = vim.api.nvim_get_current_win()
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

local function append_lines(name, lines)
  local buf = vim.fn.bufnr("offload-ls://" .. name)
  if buf == -1 then
    buf = M.show_lines(name, {})
  end
  vim.bo[buf].modifiable = true
  local count = vim.api.nvim_buf_line_count(buf)
  local first = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
  if count == 1 and first == "" then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  else
    vim.api.nvim_buf_set_lines(buf, count, count, false, lines)
  end
  vim.bo[buf].modifiable = false
end

local function split_text(text)
  return vim.split(text or "", "\n", { plain = true, trimempty = false })
end

local function nonempty(v)
  return v ~= nil and v ~= vim.NIL and v ~= ""
end

local function doctor_lines(r)
  local lines = { "offload-ls doctor", "" }
  local tc = nil
  if type(r.toolchains) == "table" and type(r.chosen) == "number" then
    tc = r.toolchains[r.chosen + 1]
  end
  local rustc = tc and (tostring(tc.rustc) .. " " .. tostring(tc.release)) or "no usable rustc"
  lines[#lines + 1] = string.format("Pipeline: %s with %s, device target %s (%s)", tostring(r.pipeline),
    tostring(rustc), tostring(r.target), tostring(r.arch))
  local gpus = {}
  for _, g in ipairs(type(r.gpus) == "table" and r.gpus or {}) do
    gpus[#gpus + 1] = tostring(g.name) .. (nonempty(g.arch) and (" (" .. g.arch .. ")") or "")
  end
  lines[#lines + 1] = "GPUs: " .. (#gpus > 0 and table.concat(gpus, ", ") or "none found")
  for _, m in ipairs(type(r.missing) == "table" and r.missing or {}) do
    lines[#lines + 1] = "missing: " .. m
  end
  if nonempty(r.install) then
    lines[#lines + 1] = "install: " .. r.install
  end
  for _, n in ipairs(type(r.notes) == "table" and r.notes or {}) do
    lines[#lines + 1] = "note: " .. n
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "Full report (JSON):"
  vim.list_extend(lines, split_text(vim.inspect(r)))
  return lines
end

local function build_lines(r)
  local lines = {
    string.format("offload-ls build: %s in %s s%s", r.ok and "done" or "failed", tostring(r.seconds),
      r.fresh and " (up to date, nothing rebuilt)" or ""),
    "executable: " .. (nonempty(r.exe) and r.exe or "none"),
    "images: " .. table.concat(type(r.images) == "table" and r.images or {}, ", "),
  }
  if nonempty(r.bundle) then
    lines[#lines + 1] = "bundle: " .. r.bundle
  end
  for _, k in ipairs(type(r.resources) == "table" and r.resources or {}) do
    local spills = (k.spill_store_bytes or 0) + (k.spill_load_bytes or 0) > 0
        and string.format("SPILLS %d B stores / %d B loads", k.spill_store_bytes, k.spill_load_bytes)
        or "no spills"
    lines[#lines + 1] = string.format("kernel %s (%s): %d registers, %d B stack, %s, %d B shared, %d B constant",
      tostring(k.kernel), tostring(k.arch), k.registers or 0, k.stack_bytes or 0, spills, k.shared_bytes or 0,
      k.constant_bytes or 0)
  end
  for _, w in ipairs(type(r.warnings) == "table" and r.warnings or {}) do
    lines[#lines + 1] = "warning: " .. w
  end
  return lines
end

--- Show the result of an offload-ls command (`command`: the LSP command name; `result`:
--- the decoded JSON reply). Failures (`ok == false`) of build and run were already shown by
--- the server (window/showMessage); those of the other commands are notified at WARN level.
function M.show_result(command, result)
  M.last_result[command] = result
  if type(result) ~= "table" then
    notify(command .. ": no result", vim.log.levels.WARN)
    return
  end
  if result.ok == false and nonempty(result.error) then
    if command == M.commands.build or command == M.commands.run or command == M.commands.profile
        or command == "offload-ls.assembly" then
      -- The server already showed this refusal (window/showMessage); keep it in the run
      -- buffer, do not show it twice.
      if command == M.commands.run then
        append_lines("run", { result.error })
      end
    else
      notify(result.error, vim.log.levels.WARN)
    end
    return
  end
  if command == M.commands.build then
    -- The server shows "built <exe> (<images>)" itself; the buffer keeps the details.
    M.show_lines("build", build_lines(result))
  elseif command == M.commands.run then
    -- The server shows "<crate> ran OK — N launches, ..." itself; the buffer gets the report.
    append_lines("run", vim.list_extend({ "" }, split_text(result.report)))
  elseif command == M.commands.profile then
    -- the profile (per-kernel figures with ncu, the runtime's totals), then the run report
    M.show_lines("profile", split_text(result.report))
  elseif command == M.commands.report then
    M.show_lines("run-report", split_text(result.report))
  elseif command == M.commands.doctor then
    M.show_lines("doctor", doctor_lines(result))
  elseif command == M.commands.cancel then
    notify("offload-ls: cancelled")
  end
end

--- Send `workspace/executeCommand` `command` with `arguments` (a list) for `bufnr` and show
--- the result; `on_done(err, result)` is called after that (optional).
function M.execute(command, arguments, bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.client(bufnr)
  if not client then
    notify("offload-ls is not running for this buffer (see editors/neovim/README.md)", vim.log.levels.ERROR)
    if on_done then
      on_done("no client", nil)
    end
    return
  end
  if command == M.commands.run then
    M.show_lines("run", { "offload-ls: building and running ..." })
  end
  request(client, "workspace/executeCommand", { command = command, arguments = arguments }, function(err, result)
    if err then
      M.last_result[command] = { ok = false, error = err.message }
      notify(string.format("%s failed: %s", command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
    else
      M.show_result(command, result)
    end
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
end

-- The file buffer a command is about: the current one, or, from one of the
-- "offload-ls://" buffers, the file buffer of the previous command.
local last_source_buf = nil
local function source_buf()
  local buf = vim.api.nvim_get_current_buf()
  if vim.api.nvim_buf_get_name(buf):match("^offload%-ls://") and last_source_buf
      and vim.api.nvim_buf_is_valid(last_source_buf) then
    return last_source_buf
  end
  last_source_buf = buf
  return buf
end

local function uri_args(bufnr, extra)
  local args = { uri = vim.uri_from_bufnr(bufnr) }
  for k, v in pairs(extra or {}) do
    args[k] = v
  end
  return { args }
end

--- Build the crate of the current buffer; `device_image`: "gpu" | "host" | "both" | nil.
function M.build(device_image, on_done)
  local buf = source_buf()
  M.execute(M.commands.build, uri_args(buf, { deviceImage = device_image }), buf, on_done)
end

-- `command` for the crate of the current buffer with program arguments `args` (run, profile).
local function with_program_args(command, args, on_done)
  local extra = {}
  if args and #args > 0 then
    extra.args = args
  end
  local buf = source_buf()
  M.execute(command, uri_args(buf, extra), buf, on_done)
end

--- Build if stale and run the crate of the current buffer with program arguments `args`.
function M.run(args, on_done)
  with_program_args(M.commands.run, args, on_done)
end

--- Build if stale, run and profile the crate of the current buffer (Nsight Compute when
--- present, else the offload runtime's timings) with program arguments `args`.
function M.profile(args, on_done)
  with_program_args(M.commands.profile, args, on_done)
end

function M.run_report(on_done)
  local buf = source_buf()
  M.execute(M.commands.report, uri_args(buf), buf, on_done)
end

function M.doctor(on_done)
  M.execute(M.commands.doctor, nil, 0, on_done)
end

function M.cancel(on_done)
  local buf = source_buf()
  M.execute(M.commands.cancel, uri_args(buf), buf, on_done)
end

--- Handler of the server's `offload-ls/runOutput` notification ({uri, stream, line}).
function M.on_run_output(_, params)
  if type(params) == "table" and params.line then
    local prefix = params.stream == "stderr" and "[stderr] " or ""
    append_lines("run", { prefix .. params.line })
  end
end

--- Define the user commands, the code-lens command routing and the run-output handler.
function M.setup()
  local cmd = vim.api.nvim_create_user_command
  cmd("OffloadBuild", function(o)
    M.build(o.fargs[1])
  end, {
    nargs = "?",
    complete = function()
      return { "gpu", "host", "both" }
    end,
    desc = "offload-ls: build the crate of this buffer [gpu|host|both]",
  })
  cmd("OffloadRun", function(o)
    M.run(o.fargs)
  end, { nargs = "*", desc = "offload-ls: build if stale and run the crate of this buffer [program args]" })
  cmd("OffloadProfile", function(o)
    M.profile(o.fargs)
  end, { nargs = "*", desc = "offload-ls: build if stale, run and profile the crate of this buffer [program args]" })
  cmd("OffloadRunReport", function()
    M.run_report()
  end, { desc = "offload-ls: show the last run report of this crate" })
  cmd("OffloadDoctor", function()
    M.doctor()
  end, { desc = "offload-ls: what the installed toolchain and GPUs can do" })
  cmd("OffloadCancel", function()
    M.cancel()
  end, { desc = "offload-ls: cancel the running build or run of this crate" })

  -- Code lenses carry these commands with their arguments; show their results as above.
  for _, name in pairs(M.commands) do
    vim.lsp.commands[name] = function(command, ctx)
      M.execute(command.command, command.arguments, ctx and ctx.bufnr or 0)
    end
  end
  vim.lsp.handlers["offload-ls/runOutput"] = M.on_run_output
  require("offload_ls.assembly").setup()
end

return M

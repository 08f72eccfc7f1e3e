-- Driven by test/editor/neovim.test.ts. A headless Neovim (no user config) attaches its
-- built-in LSP client to `assembly-line lsp --stdio`, opens AL_FILE, waits for our
-- diagnostics, replaces AL_FIND with AL_REPLACE in the buffer (an unsaved edit), waits for the
-- diagnostics to follow, and writes what vim.diagnostic.get() returned at each step as JSON to
-- AL_OUT. Neovim 0.7 (Debian 12) has no vim.lsp.start: start_client + buf_attach_client there.
-- Any error is written to AL_OUT too, and Neovim always quits (a headless Neovim would wait).
local function env(name) return assert(os.getenv(name), name .. " is not set") end
local out = env("AL_OUT")

local function run()
  local file, root = env("AL_FILE"), env("AL_ROOT")
  local find, replace = env("AL_FIND"), env("AL_REPLACE")
  local cmd = { env("AL_NODE"), env("AL_CLI"), "lsp", "--stdio" }
  local timeout = tonumber(os.getenv("AL_TIMEOUT_MS") or "60000")

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start({ name = "assembly-line", cmd = cmd, root_dir = root })
  else
    client_id = vim.lsp.start_client({ name = "assembly-line", cmd = cmd, root_dir = root })
    vim.lsp.buf_attach_client(bufnr, client_id)
  end

  local function snapshot()
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      local lsp = (d.user_data and d.user_data.lsp) or {}
      table.insert(list, { code = d.code or lsp.code, source = d.source or lsp.source, lnum = d.lnum, col = d.col, message = d.message })
    end
    return list
  end

  local result = { attached = client_id ~= nil }
  result.opened_ok = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) > 0 end, 20)
  result.opened = snapshot()

  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  for i, line in ipairs(lines) do
    lines[i] = line:gsub(vim.pesc(find), (replace:gsub("%%", "%%%%")))
  end
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  result.modified = vim.api.nvim_buf_get_option(bufnr, "modified")
  result.edited_ok = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) == 0 end, 20)
  result.edited = snapshot()
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
  return result
end

local ok, result = pcall(run)
local handle = assert(io.open(out, "w"))
handle:write(vim.fn.json_encode(ok and result or { error = tostring(result) }))
handle:close()
vim.cmd("qa!")

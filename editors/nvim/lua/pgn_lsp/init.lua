-- Neovim client for pgn-lsp, the language server for chess games in PGN.
--
--   require("pgn_lsp").setup{ cmd = { "pgn-lsp" }, settings = { inlayHints = { clocks = false } } }
--
-- Works with Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client, one client per root)
-- and with later versions (vim.lsp.start, which reuses clients by name and root itself).

local M = {}

local NAME = "pgn-lsp"

local defaults = {
  -- The server command; `pgn-lsp` and `pgn-lsp serve` both speak LSP over stdio.
  cmd = { "pgn-lsp" },
  -- The `pgn` section (schemas/settings.schema.json), e.g. { format = { lineLength = 100 } }.
  settings = {},
  -- Called as on_attach(client, bufnr) after the server is attached to a buffer.
  on_attach = nil,
  -- Extra client capabilities, merged over Neovim's own.
  capabilities = nil,
  -- Files or folders marking the root of a workspace; without one, the file's directory.
  root_markers = { ".git" },
  -- Turn on inlay hints (NAG glyphs, clocks, evaluations) where Neovim can show them (0.10+).
  inlay_hints = true,
  -- In a buffer of more lines than this, inlay hints are asked for the lines around the windows
  -- showing it (and again after scrolling) instead of the whole buffer, as Neovim does: a file
  -- of thousands of online games has millions of clocks.
  visible_hints_above = 2000,
  -- File types the server is started for.
  filetypes = { "pgn" },
}

M.config = vim.deepcopy(defaults)

local clients_by_root = {} -- Neovim 0.7: root directory -> client id

local function has(feature)
  return vim.fn.has(feature) == 1
end

--- The `pgn` settings as sent to the server: an object even when empty.
local function pgn_settings()
  local settings = vim.deepcopy(M.config.settings or {})
  if next(settings) == nil then
    return vim.empty_dict()
  end
  return settings
end

local function is_dir(path)
  local stat = vim.loop.fs_stat(path)
  return stat ~= nil and stat.type == "directory"
end

--- The directory holding the nearest root marker above the buffer's file, else the file's directory.
local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return vim.loop.cwd()
  end
  local start = vim.fn.fnamemodify(name, ":p:h")
  local dir = start
  while dir and dir ~= "" do
    for _, marker in ipairs(M.config.root_markers or {}) do
      if vim.loop.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      break
    end
    dir = parent
  end
  if is_dir(start) then
    return start
  end
  return vim.loop.cwd()
end

local function enable_inlay_hints(bufnr)
  local inlay = vim.lsp.inlay_hint
  if not M.config.inlay_hints or inlay == nil then
    return
  end
  if type(inlay) == "table" and type(inlay.enable) == "function" then
    -- 0.10.1 and later: enable(enable, filter); 0.10.0: enable(bufnr, enable).
    if not pcall(inlay.enable, true, { bufnr = bufnr }) then
      pcall(inlay.enable, bufnr, true)
    end
  elseif type(inlay) == "function" or (getmetatable(inlay) or {}).__call then
    -- 0.10 nightlies before the release: vim.lsp.inlay_hint(bufnr, enable).
    pcall(inlay, bufnr, true)
  end
end

--- Whether a buffer's inlay hints are asked for around its windows only.
local function hints_around_windows(bufnr)
  return vim.api.nvim_buf_is_valid(bufnr)
    and vim.api.nvim_buf_line_count(bufnr) > (M.config.visible_hints_above or math.huge)
end

--- The lines around the windows showing a buffer, as an LSP range; nil when none shows it.
local function lines_around_windows(bufnr)
  local first, last
  for _, window in ipairs(vim.fn.win_findbuf(bufnr)) do
    local top, bottom = vim.fn.line("w0", window) - 1, vim.fn.line("w$", window) - 1
    first = math.min(first or top, top)
    last = math.max(last or bottom, bottom)
  end
  if first == nil then
    return nil
  end
  local margin = 100
  return {
    start = { line = math.max(0, first - margin), character = 0 },
    ["end"] = { line = math.min(vim.api.nvim_buf_line_count(bufnr), last + margin), character = 0 },
  }
end

--- Neovim 0.10 and later ask for the inlay hints of the whole buffer after every change: in a
--- large buffer the client's requests ask for the lines around its windows instead, and
--- scrolling asks again (Neovim keeps only the hints of the latest answer).
local function hint_visible_lines(client, bufnr)
  if not has("nvim-0.11") or not M.config.inlay_hints then
    return
  end
  if not client._pgn_visible_hints then
    client._pgn_visible_hints = true
    local request = client.request
    client.request = function(self, method, params, handler, target)
      if method == "textDocument/inlayHint" and type(params) == "table" and target and hints_around_windows(target) then
        local range = lines_around_windows(target)
        if range then
          params = { textDocument = params.textDocument, range = range }
        end
      end
      return request(self, method, params, handler, target)
    end
  end
  local pending = false
  vim.api.nvim_create_autocmd("WinScrolled", {
    group = vim.api.nvim_create_augroup("pgn_lsp_hints_" .. bufnr, { clear = true }),
    callback = function()
      if pending or not hints_around_windows(bufnr) or #vim.fn.win_findbuf(bufnr) == 0 then
        return
      end
      pending = true
      vim.defer_fn(function()
        pending = false
        if vim.api.nvim_buf_is_valid(bufnr) and vim.lsp.util._refresh then
          vim.lsp.util._refresh("textDocument/inlayHint", { bufnr = bufnr })
        end
      end, 100)
    end,
  })
end

--- `workspace/inlayHint/refresh` (sent after a review): the hints of every buffer of the client
--- that shows them are asked for again and drawn anew. Neovim's own handler (0.10, 0.11) may draw
--- the old hints again before the new ones arrive, and then keeps them until hints are toggled;
--- turning a buffer's hints off and on again clears what was drawn and asks for them.
local function refresh_inlay_hints(err, _, ctx)
  local inlay = vim.lsp.inlay_hint
  if err or type(inlay) ~= "table" or type(inlay.is_enabled) ~= "function" then
    return vim.NIL
  end
  local buffers = vim.lsp.get_buffers_by_client_id and vim.lsp.get_buffers_by_client_id(ctx.client_id) or {}
  for _, bufnr in ipairs(buffers) do
    -- is_enabled{ bufnr = … } from 0.10.1 on; 0.10.0 keeps its own handler's behaviour.
    local ok, enabled = pcall(inlay.is_enabled, { bufnr = bufnr })
    if ok and enabled and vim.api.nvim_buf_is_loaded(bufnr) then
      inlay.enable(false, { bufnr = bufnr })
      inlay.enable(true, { bufnr = bufnr })
    end
  end
  return vim.NIL
end

--- `window/showDocument` (the repertoire lens's "go to the biggest gap") for Neovim 0.7, which has
--- no handler of its own: the file in the current window, the cursor at the selection's start.
local function show_document(_, result)
  local path = vim.uri_to_fname(result.uri)
  if vim.api.nvim_buf_get_name(0) ~= path then
    vim.cmd("edit " .. vim.fn.fnameescape(path))
  end
  local start = result.selection and result.selection.start
  if start then
    local line = vim.api.nvim_buf_get_lines(0, start.line, start.line + 1, false)[1] or ""
    local ok, col = pcall(vim.str_byteindex, line, start.character, true)
    vim.api.nvim_win_set_cursor(0, { start.line + 1, ok and col or 0 })
  end
  return { success = true }
end

local own_show_document = vim.lsp.handlers["window/showDocument"] == nil

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- Neovim 0.7 answers workspace/configuration (from config.settings) but does not announce it.
  caps.workspace = caps.workspace or {}
  caps.workspace.configuration = true
  if own_show_document then
    caps.window = caps.window or {}
    caps.window.showDocument = { support = true }
  end
  if M.config.capabilities then
    caps = vim.tbl_deep_extend("force", caps, M.config.capabilities)
  end
  return caps
end

local function client_config(root)
  local settings = pgn_settings()
  return {
    name = NAME,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = { pgn = settings },
    -- Neovim answers workspace/configuration for the section "pgn" from this table.
    settings = { pgn = settings },
    capabilities = capabilities(),
    handlers = {
      ["workspace/inlayHint/refresh"] = refresh_inlay_hints,
      ["window/showDocument"] = own_show_document and show_document or nil,
    },
    on_attach = function(client, bufnr)
      hint_visible_lines(client, bufnr)
      enable_inlay_hints(bufnr)
      -- Completion with <C-x><C-o> (and completion plugins that read 'omnifunc'): Neovim 0.8 and
      -- later set it on attach, 0.7 does not.
      if vim.bo[bufnr].omnifunc == "" then
        vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
      end
      if M.config.on_attach then
        M.config.on_attach(client, bufnr)
      end
    end,
  }
end

--- Starts (or reuses) the client of the buffer's root and attaches it to the buffer.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= "" then
    return
  end
  local root = root_dir(bufnr)
  if vim.lsp.start then
    local config = client_config(root)
    vim.api.nvim_buf_call(bufnr, function()
      vim.lsp.start(config, { bufnr = bufnr })
    end)
    return
  end
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      vim.notify("pgn-lsp: could not start " .. table.concat(M.config.cmd, " "), vim.log.levels.ERROR)
      return
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

--- The pgn-lsp client attached to a buffer, if any.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = NAME })[1]
  end
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if client.name == NAME then
      return client
    end
  end
  return nil
end

local function request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function notify(client, method, params)
  if has("nvim-0.11") then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

--- Runs `workspace/executeCommand` on the buffer's pgn-lsp client.
--- with_position: the arguments are the document URI and the cursor position; else only the URI.
--- arguments, when given, are sent as they are. on_result hears the answer.
function M.execute(command, with_position, arguments, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    vim.notify("pgn-lsp is not attached to this buffer", vim.log.levels.WARN)
    return
  end
  local uri = vim.uri_from_bufnr(bufnr)
  if not arguments then
    arguments = { uri }
    if with_position then
      local position = vim.lsp.util.make_position_params(0, client.offset_encoding or "utf-16").position
      arguments = { uri, position }
    end
  end
  request(client, "workspace/executeCommand", { command = command, arguments = arguments }, function(err, result)
    if err then
      vim.notify(("pgn-lsp: %s: %s"):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end, bufnr)
end

--- `:PgnExplorerFilter player=Carlsen color=black`: which games the explorer counts (the
--- `explorer.*` settings), for the session; with no argument, every game again.
function M.explorer_filter(words)
  local filter = vim.empty_dict()
  for _, word in ipairs(words) do
    local key, value = word:match("^([%w]+)=(.*)$")
    if not key then
      vim.notify(("pgn-lsp: %s is not key=value"):format(word), vim.log.levels.ERROR)
      return
    end
    filter[key] = (key == "minElo" or key == "maxElo") and (tonumber(value) or value) or value
  end
  M.execute("pgn.setExplorerFilter", false, { filter }, function(result)
    vim.notify(("pgn-lsp: the explorer counts %s"):format(result and result.filter or "?"), vim.log.levels.INFO)
  end)
end

--- Replaces the `pgn` settings and sends them to the running servers.
function M.update_settings(settings)
  M.config.settings = settings or {}
  local value = pgn_settings()
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ name = NAME }) or vim.lsp.get_active_clients()
  for _, client in ipairs(clients) do
    if client.name == NAME then
      client.config.settings = { pgn = value }
      notify(client, "workspace/didChangeConfiguration", { settings = { pgn = value } })
    end
  end
end

M.commands = {
  PgnFixAll = { command = "pgn.fixAll", position = false, desc = "Fix all safe problems of the file" },
  PgnReviewGame = { command = "pgn.reviewGame", position = true, desc = "Review the game under the cursor" },
  PgnReviewFile = { command = "pgn.reviewFile", position = true, desc = "Review every game of the file" },
  PgnSaveGame = { command = "pgn.saveGame", position = true, desc = "Save the game under the cursor" },
  PgnSaveAllGames = { command = "pgn.saveAllGames", position = true, desc = "Save every game of the file" },
  PgnAnnotate = { command = "pgn.annotateGame", position = true, desc = "Annotate the game under the cursor" },
  PgnFillOpeningTags = { command = "pgn.fillOpeningTags", position = true,
                         desc = "Fill in the ECO and Opening tags of the game under the cursor" },
  PgnFillAllOpeningTags = { command = "pgn.fillAllOpeningTags", position = false,
                            desc = "Fill in the ECO and Opening tags of every game of the file" },
  PgnCheckRepertoire = { command = "pgn.reviewRepertoire", position = false,
                         desc = "Judge every move of the file's repertoires with the engine" },
}

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  -- Lists are replaced, not merged.
  for _, key in ipairs({ "cmd", "root_markers", "filetypes" }) do
    if opts and opts[key] then
      M.config[key] = opts[key]
    end
  end

  if vim.filetype and vim.filetype.add then
    vim.filetype.add({ extension = { pgn = "pgn" } })
  end

  local group = vim.api.nvim_create_augroup("pgn_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })

  for name, spec in pairs(M.commands) do
    vim.api.nvim_create_user_command(name, function()
      M.execute(spec.command, spec.position)
    end, { desc = spec.desc, force = true })
  end
  vim.api.nvim_create_user_command("PgnExplorerFilter", function(args)
    M.explorer_filter(args.fargs)
  end, { nargs = "*", desc = "Set which games the explorer counts: player=… color=… since=… until=… minElo=… maxElo=… speed=…",
         force = true })

  -- Buffers opened before setup().
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr)
    end
  end
end

return M

-- A real Neovim with nvim-dap on the adapter, as doc/source/user/editor.rst
-- configures it; tools/nvim_dap.sh drives it. Each DAP event of interest is
-- written to $RUN_LOG with the seconds since F5.
vim.opt.packpath:prepend(vim.env.NVIM_PACK)
vim.cmd('packloadall')
local dap = require('dap')
local log = io.open(vim.env.RUN_LOG, 'a')
local t0 = nil
local function note(what)
  local now = vim.loop.hrtime() / 1e9
  log:write(string.format('%.3f %s\n', t0 and (now - t0) or 0, what))
  log:flush()
end
-- As doc/source/user/editor.rst says.
dap.adapters.heat = {type = 'executable', command = vim.env.HEAT_BREAKPOINT,
                     args = {'dap'}}
dap.configurations.yaml = {
  {type = 'heat', request = 'launch', name = 'Create this stack',
   template = '${file}', stack = vim.env.STACK},
}
vim.keymap.set('n', '<F5>', function()
  t0 = vim.loop.hrtime() / 1e9
  note('F5')
  dap.continue()
end)
vim.keymap.set('n', '<F9>', dap.toggle_breakpoint)
vim.keymap.set('n', '<F10>', dap.step_over)
vim.keymap.set('n', '<F12>', dap.terminate)
for _, ev in ipairs({'stopped', 'exited', 'terminated', 'output'}) do
  dap.listeners.after['event_' .. ev]['run'] = function(_, body)
    local text = ev
    if ev == 'stopped' then text = ev .. ' ' .. (body.description or body.reason or '') end
    if ev == 'output' then text = 'output ' .. (body.output or ''):gsub('\n', ' ') end
    if ev == 'exited' then text = ev .. ' ' .. tostring(body.exitCode) end
    note(text)
  end
end

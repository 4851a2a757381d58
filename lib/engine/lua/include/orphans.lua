-- orphans: index entries whose task record is gone or unreadable (a record
-- changed by something else than the engine, docs/semantics.md §1.10). Built on first
-- use: well-formed queues never need it.
--- @include "owners"
--- @include "owned"
--- @include "pools"
--- @include "caps"

local orphans_module = nil
local function orphans()
  if orphans_module ~= nil then return orphans_module end
  local M = {}

  -- forget removes an id from the pools, and gives back the owners count it
  -- held. Members that carry a prefix the record alone says (`gates`,
  -- `children`, `root-leaves`, `meta-tasks`) cannot be found without it: each
  -- is dropped where an operation meets it, and repair rebuilds them all.
  function M.forget(id, ctx)
    leave_ready(id, K['ready'], id, ctx)
    leave_ready(id, K['ready-cron'], id, ctx)
    for _, key in ipairs({ K['waiting'], K['promoted'], K['leases'], K['broadcast'], K['retention'],
      K['templates'], K['ticker-check'], K['gate-templates'], K['halted'], K['halted-since'] }) do
      redis.call('ZREM', key, id)
    end
    redis.call('HDEL', K['due'], id)
    drop_unicast(id, ctx)
    local member, holder = owned_holder(id)
    if holder then
      redis.call('ZREM', K['owned'], member)
      count_owner(holder, -1, ctx)
      caps().give(id, nil, ctx)
    end
  end

  orphans_module = M
  return M
end

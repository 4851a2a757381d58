-- folded-replay: the answer to a delete-search or complete-claim request sent
-- again, from what the first run kept (include/request.lua): the same
-- deletes' answers, the same claims while they hold, and nothing written.
-- `searching` is the call's search (its worker; its floor and base are set
-- from what was kept).
--- @include "search-request"
local function replay_folded(kept, searching)
  local replies = {}
  for _, entry in ipairs(cjson.decode(kept)) do
    if entry.n ~= nil then
      replies[#replies + 1] = { 'counts', entry.n, entry.h }
    elseif entry.e ~= nil then
      replies[#replies + 1] = { 'error', entry.e }
    elseif entry.l ~= nil then
      replies[#replies + 1] = { 'later' }
    elseif entry.k == 'task' then
      searching.floor, searching.base = string.match(entry.f, '^(%d+):(%d+)$')
      replies[#replies + 1] = { entry.r, replay_claim(entry.c, searching) }
    elseif entry.k == 'broadcast' then
      local record = redis.call('HGET', K['tasks'], entry.i)
      if record then
        replies[#replies + 1] = { entry.r, 'broadcast', entry.i, record, entry.f, '', '', '' }
      else
        replies[#replies + 1] = { entry.r, 'none', '', '', entry.f, '', '', '' }
      end
    else
      replies[#replies + 1] = { entry.r, entry.k, '', '', entry.f, entry.d, entry.m, entry.b }
    end
  end
  return replies
end

-- claim_memory: what the replay of an entry that claimed reads; every part is
-- digits, ids or words (no JSON encoder needed)
local function claim_memory(result, id, floors, claimed)
  return '{"r":' .. result .. ',"k":"task","i":"' .. id .. '","f":"' .. floors .. '","c":"' .. claimed .. '"}'
end

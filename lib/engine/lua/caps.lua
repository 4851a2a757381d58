#!lua flags=allow-oom
--[[ caps: declare, change or remove the queue's concurrency caps (caps-list.lua lists them)
  (docs/semantics.md §3.15).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the caps list of lib/engine/lua/arguments.ts

  A cap on a meta key that was not declared counts the tasks already owned
  (one walk of `owned`: as many records as tasks are owned); removing it
  takes its slots out of `cap-holders` and `cap-counts` (one walk of
  `cap-holders`). Raising a cap wakes the parked slots (include/wake-parked.lua).

  Returns  0 when the caps already were so; when they changed, what the
           engine does next with aside.lua (docs/semantics.md §3.17): 1 nothing,
           2 sort (the key's first lane control), 3 refill (the key's lanes
           have more room), 4 drain-key (the key has no lane control left)
  Errors   none
]]
--- @include "features"
--- @include "task"
--- @include "hash-each"
--- @include "owned"
--- @include "wake-parked"

local operation, key = ARGV[ARG.caps.operation], ARGV[ARG.caps.key]

local was = redis.call('HGET', K['caps'], key)

if operation == 'set' then
  local most = ARGV[ARG.caps.concurrency]
  if was == most then return 0 end
  redis.call('HSET', K['caps'], key, most)
  use_feature('caps')
  if was == false and key ~= '' then
    -- the tasks owned already take their slots
    local prefix = key .. '\0'
    owned_each(function(id)
      local task = load_task(id)
      local value = task and task.meta and task.meta[key]
      if value ~= nil then
        local json = redis.call('HGET', K['cap-holders'], id)
        local held = json and cjson.decode(json) or {}
        local holds = false
        for _, field in ipairs(held) do
          if string.sub(field, 1, #prefix) == prefix then holds = true end
        end
        if not holds then
          held[#held + 1] = prefix .. value
          redis.call('HINCRBY', K['cap-counts'], prefix .. value, 1)
          redis.call('HSET', K['cap-holders'], id, cjson.encode(held))
          use_feature('cap-holders')
        end
      end
    end)
  end
  if was ~= false and tonumber(most) > tonumber(was) then
    wake_parked()
    if key ~= '' then return 3 end -- its lanes have more room
  end
  -- a key's first cap (and no rate limit): its tasks are sorted into lanes
  if was == false and key ~= '' and redis.call('HEXISTS', K['rates'], key) == 0 then return 2 end
  return 1
end

-- remove
if was == false then return 0 end
redis.call('HDEL', K['caps'], key)
if redis.call('EXISTS', K['caps']) == 0 then redis.call('HDEL', K['features'], 'caps') end
if key ~= '' then
  local prefix = key .. '\0'
  local changes = {}
  hash_each(K['cap-holders'], function(id, json)
    local kept, dropped = {}, false
    for _, field in ipairs(cjson.decode(json)) do
      if string.sub(field, 1, #prefix) == prefix then dropped = true else kept[#kept + 1] = field end
    end
    if dropped then changes[#changes + 1] = { id, kept } end
  end)
  for _, change in ipairs(changes) do
    if #change[2] == 0 then
      redis.call('HDEL', K['cap-holders'], change[1])
    else
      redis.call('HSET', K['cap-holders'], change[1], cjson.encode(change[2]))
    end
  end
  local fields = {}
  hash_each(K['cap-counts'], function(field)
    if string.sub(field, 1, #prefix) == prefix then fields[#fields + 1] = field end
  end)
  for _, field in ipairs(fields) do redis.call('HDEL', K['cap-counts'], field) end
end
wake_parked()
if key ~= '' then
  -- its values' lanes: still there with a rate limit (more room), else gone
  if redis.call('HEXISTS', K['rates'], key) == 1 then return 3 end
  return 4
end
return 1

#!lua flags=no-writes
--[[ caps-list: the queue's concurrency caps with their counts (engine.caps(),
  docs/semantics.md §3.15). Reads `caps`, `cap-counts` and `owned`.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the caps_list list of lib/engine/lua/arguments.ts

  Returns  JSON [{ key, concurrency, owned, values: [[value, owned], ...] }]
           (values: {} when empty, cjson's empty table), key '' for the whole
           queue; '[]' without caps
  Errors   none
]]

--- @include "hash-each"

local list = {}
local by_key = {}
local flat = redis.call('HGETALL', K['caps'])
for index = 1, #flat, 2 do
  local cap = { key = flat[index], concurrency = tonumber(flat[index + 1]), owned = 0, values = {} }
  if cap.key == '' then cap.owned = redis.call('ZCARD', K['owned']) end
  list[#list + 1] = cap
  by_key[cap.key] = cap
end
if #list > 0 then
  hash_each(K['cap-counts'], function(field, count)
    local cap_key, value = string.match(field, '^(.-)%z(.*)$')
    local cap = cap_key and by_key[cap_key]
    if cap ~= nil and cap_key ~= '' then
      cap.values[#cap.values + 1] = { value, tonumber(count) }
      cap.owned = cap.owned + tonumber(count)
    end
  end)
end
if #list == 0 then return '[]' end
return cjson.encode(list)

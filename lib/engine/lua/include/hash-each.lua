-- hash-each: a visit of every field of a hash, 100 a HSCAN step, in one
-- call: the caller says why the hash is bounded (caps.lua: the declarations,
-- their counts, and the owned tasks when a cap is declared, docs/semantics.md §3.15).
--
-- API:
--   hash_each(hash, visit)   visit(field, value) for every field of `hash`

local function hash_each(hash, visit)
  local cursor = '0'
  repeat
    local reply = redis.call('HSCAN', hash, cursor, 'COUNT', 100)
    cursor = reply[1]
    for index = 1, #reply[2], 2 do visit(reply[2][index], reply[2][index + 1]) end
  until cursor == '0'
end

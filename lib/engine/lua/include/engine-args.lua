-- engine-args: the arguments of a call that are the same on every call of
-- an engine (complete-claim's `engine`, lib/engine/complete-claim.ts
-- engineArgument), passed as one text: an argument costs Redis about 1,000
-- instructions to read and to make into ARGV, and a pattern match about
-- as much. A library (Redis functions) keeps what it read, by text, for up
-- to 64 texts at a time; under EVAL each call reads it again.

local engine_tables, engine_table_count = {}, 0

-- engine_args: `<start ms>:<self key>:<retention>:<most>:<park for ms>:<worker>`
-- read into { start_ms, self_key, retention, most, park_for, worker,
-- worker_json }: the worker last, as it may hold any character; retention
-- and most numbers, the others text ('' park_for: no parking); worker_json
-- the worker as a JSON string (a claim writes it into the record)
local function engine_args(text)
  local known = engine_tables[text]
  if known ~= nil then return known end
  local start_ms, self_key, retention, most, park_for, worker =
    string.match(text, '^(%d+):(%x*):(%d+):(%d+):(%d*):(.*)$')
  if worker == nil then error('engine-args: not an engine argument: ' .. text) end
  if engine_table_count >= 64 then engine_tables, engine_table_count = {}, 0 end
  known = { start_ms = start_ms, self_key = self_key, retention = tonumber(retention), most = tonumber(most),
    park_for = park_for, worker = worker, worker_json = cjson.encode(worker) }
  engine_tables[text], engine_table_count = known, engine_table_count + 1
  return known
end

#!lua flags=no-writes
--[[ scan: the tasks matching a query, for exists and lister (semantics 3.4,
  3.5). Reads up to `budget` records from an HSCAN cursor; a queue that fits
  in one budget is read as one consistent snapshot.

  KEYS     every key of the queue
  ARGV[1]  query       JSON of the query
  ARGV[2]  cursor      HSCAN cursor, '0' to start
  ARGV[3]  budget      how many records to read at most
  ARGV[4]  first       '1' to stop at the first match (exists)

  Returns  { cursor, id, record, id, record, ... }  cursor '0' when the scan is
           complete; records in the stored form (lib/task/codec.ts encodeStored)
  Errors   none
]]
--- @include "task"
--- @include "has"

local query = decode_task(ARGV[1])
local cursor = ARGV[2]
local budget = tonumber(ARGV[3])
local first = ARGV[4] == '1'
local found = { '0' }
local read = 0
repeat
  local reply = redis.call('HSCAN', K['tasks'], cursor, 'COUNT', 200)
  cursor = reply[1]
  local entries = reply[2]
  for index = 1, #entries, 2 do
    local id, json = entries[index], entries[index + 1]
    local task = decode_scanned(id, json)
    if task ~= nil and matches(task, query) then
      found[#found + 1] = id
      found[#found + 1] = json
      if first then return found end
    end
  end
  read = read + #entries / 2
until cursor == '0' or read >= budget
found[1] = cursor
return found

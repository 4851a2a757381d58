#!lua flags=no-writes
--[[ scan: the tasks matching a query, for exists and lister (docs/semantics.md §3.4,
  §3.5). A query that names one object id exactly (core) reads that record; one
  that names a template's id exactly (root) reads its children, `budget` a
  step (cursor 'c' and the last one read); one that asks an exact meta value
  of a key `meta-tasks` lists reads the tasks listed under it, the same way
  (cursor 'm' and the last id read). Otherwise it
  reads up to `budget` records (at most 256 KiB of them, for at most the
  engine's stepTime: include/step.lua) from an HSCAN cursor; a queue read in
  one step is read as one consistent snapshot.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the scan list of lib/engine/lua/arguments.ts

  Returns  { cursor, id, record, id, record, ... }  cursor '0' when the scan is
           complete; records in the stored form (lib/task/codec.ts encodeStored)
  Errors   none
]]
--- @include "task"
--- @include "step"
--- @include "has"
--- @include "roots"

local query = decode_task(ARGV[ARG.scan.query])
local cursor = ARGV[ARG.scan.cursor]
local budget = tonumber(ARGV[ARG.scan.budget])
local first = ARGV[ARG.scan.first] == '1'
local found = { '0' }
local spelled = spelled_values(query)

local function consider(id, json)
  if not json or not may_match(json, spelled) then return false end
  local task = decode_scanned(id, json)
  if task ~= nil and matches(task, query) then
    found[#found + 1] = id
    found[#found + 1] = json
    return first
  end
  return false
end

-- a query that names one object id exactly reads that record alone; one that
-- names an emitted child's template, that template's children
local function exact_id(labels)
  local id = labels ~= nil and labels[LABEL_OBJECT] or nil
  if id ~= nil and id ~= '*' then return id end
  return nil
end
local by_id = exact_id(query.core)
if by_id ~= nil then
  consider(by_id, redis.call('HGET', K['tasks'], by_id))
  return found
end
-- walk_listed reads the tasks listed in the lex zset `index` under `prefix`
-- (each member the prefix and an id, which id_of returns, or nil when the
-- member is another's), `budget` a step; the cursor is then `tag` and the
-- last id read. Ids sort by creation, so the walk is oldest first.
local function walk_listed(index, prefix, tag, id_of)
  local from = '[' .. prefix
  if string.sub(cursor, 1, 1) == tag then from = '(' .. prefix .. string.sub(cursor, 2) end
  local members = redis.call('ZRANGEBYLEX', index, from, '[' .. prefix .. '\255', 'LIMIT', 0, budget)
  step_spent() -- the clock starts here
  local id
  for position, member in ipairs(members) do
    id = id_of(member)
    if id ~= nil and consider(id, redis.call('HGET', K['tasks'], id)) then return found end
    if position < #members and position % 16 == 0 and step_spent() then
      found[1] = tag .. string.sub(member, #prefix + 1)
      return found
    end
  end
  if #members == budget then found[1] = tag .. string.sub(members[#members], #prefix + 1) end
  return found
end

local template_id = exact_id(query.root)
if template_id ~= nil then
  return walk_listed(K['children'], template_id, 'c', function(member)
    if #member ~= #template_id + 26 then return nil end -- a child of a template whose id is longer
    return string.sub(member, -26)
  end)
end
-- one that asks an exact meta value of a key `meta-tasks` lists (an engine's
-- metaIndexes, or a key an exact root named), the tasks listed under it; a
-- listing begun by a walk that can no longer go on starts again (lister
-- keeps each task once)
local listed = roots().listed_pair(query.meta)
if string.sub(cursor, 1, 1) == 'm' and listed == nil then cursor = '0' end
if listed ~= nil and (cursor == '0' or string.sub(cursor, 1, 1) == 'm') then
  return walk_listed(K['meta-tasks'], listed, 'm', function(member)
    return string.sub(member, #listed + 1)
  end)
end

-- otherwise a bounded step of a scan of the records: `budget` records,
-- BYTES_MOST bytes of them or the call's time (include/step.lua), whichever
-- comes first, and the HSCAN batch it is in: 1,000 records of 1 KB took 7 ms,
-- 256 KiB about 2.5 ms, 500 records 9 ms at 1M on a slow host
local BYTES_MOST = 262144
local BATCH = 32
local read, bytes = 0, 0
step_spent() -- the clock starts here
repeat
  local reply = redis.call('HSCAN', K['tasks'], cursor, 'COUNT', BATCH)
  cursor = reply[1]
  local entries = reply[2]
  for index = 1, #entries, 2 do
    bytes = bytes + #entries[index + 1]
    if consider(entries[index], entries[index + 1]) then return found end
  end
  read = read + #entries / 2
until cursor == '0' or read >= budget or bytes >= BYTES_MOST or step_spent()
found[1] = cursor
return found

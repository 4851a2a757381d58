#!lua flags=no-writes
--[[ page: one page of the tasks in one state for engine.tasks(), read from
  that state's index a bounded step at a time, oldest first where the index
  orders by id. Each call reads at most `budget` index entries and 256 KiB of
  records, runs at most the engine's stepTime (include/step.lua), and stops
  at `limit` matches; `position` says where the next page starts.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the page list of lib/engine/lua/arguments.ts
           position, by state: `<pool 1-5><member>` (claimable: ready, ready-cron,
           ready-uni, ready-prio, aside), `<member>`
           (halted, gate), `<score>:<id>` (owned, waiting, cron, broadcast: by
           score), `<HSCAN cursor>:<entries>` (all, held), `m<id>` (any state: the
           tasks listed under an exact value of a meta key the query asks, where
           they are fewer than the state's)

  Returns  { position, read, id, record, id, record, ... }  position '' when the
           state's index was read to its end; read: how many index entries the
           call read; records in the stored form
  Errors   none (the engine checks the state and the position's form)
]]
--- @include "task"
--- @include "step"
--- @include "has"
--- @include "roots"

local state = ARGV[ARG.page.state]
local query = ARGV[ARG.page.query] ~= '' and decode_task(ARGV[ARG.page.query]) or nil
local spelled = query ~= nil and spelled_values(query) or {}
local limit = tonumber(ARGV[ARG.page.limit])
local position = ARGV[ARG.page.position]
local budget = tonumber(ARGV[ARG.page.budget])
local BYTES_MOST = 262144 -- 1,000 records of 1 KB took 7 ms; 256 KiB about 2.5 ms
local BATCH = 100

local found = { '', '0' }
local matched, read, bytes = 0, 0, 0

-- the call's time (include/step.lua) is looked at every TIME_EVERY entries
local TIME_EVERY = 16
local function full()
  return matched >= limit or read >= budget or bytes >= BYTES_MOST
    or (read % TIME_EVERY == 0 and read > 0 and step_spent())
end

local function consider(id, json, decode)
  read = read + 1
  if not json then return end -- an index entry whose record is gone
  bytes = bytes + #json
  if not may_match(json, spelled) then return end
  local task = decode(id, json)
  if task ~= nil and (query == nil or matches(task, query)) then
    found[#found + 1] = id
    found[#found + 1] = json
    matched = matched + 1
  end
end

local function batch_size()
  return math.min(BATCH, budget - read, limit - matched)
end

-- a zset of ids (or `<target>\0<id>`) with equal scores, by member after `after`
-- ('' from the start); returns the last member read, or nil at the index's end
local function by_member(key, after)
  local from = after == '' and '-' or '(' .. after
  while not full() do
    local members = redis.call('ZRANGEBYLEX', key, from, '+', 'LIMIT', 0, batch_size())
    if #members == 0 then return nil end
    local ids = {}
    for index, member in ipairs(members) do ids[index] = string.sub(member, -26) end
    local records = redis.call('HMGET', K['tasks'], unpack(ids))
    for index, member in ipairs(members) do
      consider(ids[index], records[index], decode_stored)
      after = member
      if full() then break end
    end
    from = '(' .. after
  end
  return after
end

-- a zset of ids by score (due time, lease end, tick, sequence), by rank: from
-- the rank after the last id read where that id still is; else from the first
-- member of its score, skipping those of that score up to its id
local function by_score(key, at)
  local rank, skip_score, skip_id = 0, nil, nil
  if at ~= '' then
    local score, id = string.match(at, '^(.*):(%d+%-%d+)$')
    local now_rank = id and redis.call('ZRANK', key, id)
    if now_rank then
      rank = now_rank + 1
    elseif score ~= nil then
      rank = redis.call('ZCOUNT', key, '-inf', '(' .. score)
      skip_score, skip_id = score, id
    end
  end
  local last = nil
  while not full() do
    local reply = redis.call('ZRANGE', key, rank, rank + batch_size() - 1, 'WITHSCORES')
    if #reply == 0 then return nil end
    local ids = {}
    for index = 1, #reply, 2 do ids[#ids + 1] = reply[index] end
    local records = redis.call('HMGET', K['tasks'], unpack(ids))
    for index, id in ipairs(ids) do
      local score = reply[index * 2]
      if skip_score == score and not bytes_less(skip_id, id) then
        read = read + 1 -- read before
      else
        consider(id, records[index], decode_stored)
      end
      rank, last = rank + 1, score .. ':' .. id
      if full() then break end
    end
  end
  return last
end

-- every record, by HSCAN steps; `<cursor>:<entries>` resumes a step that
-- filled the page after that many of its entries (a step from the same cursor
-- gives the same entries while the hash is not resized)
-- (`held`: the held tasks, whose values are `<after>\0<due>\0<record>`)
local function by_scan(at, key)
  local cursor, skip = string.match(at, '^(%d+):(%d+)$')
  cursor, skip = cursor or '0', tonumber(skip) or 0
  repeat
    local reply = redis.call('HSCAN', key, cursor, 'COUNT', batch_size())
    local entries = reply[2]
    for index = skip * 2 + 1, #entries, 2 do
      local json = entries[index + 1]
      if key == K['held'] then json = string.match(json, '^[^%z]*%z[^%z]*%z(.*)$') end
      consider(entries[index], json, decode_scanned)
      if full() and index + 1 < #entries then return cursor .. ':' .. ((index + 1) / 2) end
    end
    cursor, skip = reply[1], 0
  until cursor == '0' or full()
  if cursor == '0' then return nil end
  return cursor .. ':0'
end

-- the sets whose members (ids) are the tasks of a state, and how many
-- tasks it holds: a listed query walks the listing or the state, the smaller
local state_sets = {
  claimable = { K['ready'], K['ready-cron'] }, -- and `targets` (ready-uni), `ready-prio`
  owned = { K['leases'] },
  waiting = { K['waiting'] },
  halted = { K['halted'] },
  cron = { K['templates'] },
  gate = { K['gate-templates'] },
  broadcast = { K['broadcast'] },
}
local function in_state(id)
  for _, key in ipairs(state_sets[state] or {}) do
    if redis.call('ZSCORE', key, id) then return true end
  end
  if state == 'claimable' and redis.call('HEXISTS', K['targets'], id) == 1 then return true end
  -- set aside (docs/semantics.md §3.17): claimable still, for whoever lists them
  if state == 'claimable' and string.sub(redis.call('HGET', K['aside-of'], id) or '', 1, 1) == 'a' then return true end
  if state == 'claimable' and redis.call('EXISTS', K['ready-prio']) == 1 then
    -- a member of `ready-prio` is `<priority tag><id>`: the record says the tag
    local task = load_task(id)
    local tag = task and priority_tag(task) or ''
    if tag ~= '' and redis.call('ZSCORE', K['ready-prio'], tag .. id) then return true end
  end
  return state == 'all'
end
local function state_size()
  if state == 'all' then return redis.call('HLEN', K['tasks']) end
  if state == 'held' then return redis.call('HLEN', K['held']) end
  local size = state == 'claimable'
    and redis.call('HLEN', K['targets']) + redis.call('ZCARD', K['ready-prio']) + redis.call('ZCARD', K['aside']) or 0
  for _, key in ipairs(state_sets[state] or {}) do size = size + redis.call('ZCARD', key) end
  return size
end

-- the tasks of the state that `meta-tasks` lists under `prefix` (a pair of
-- the query: roots.lua listed_pair), by id after `after` ('' from the
-- start); returns 'm' and the last id read, or nil at the listing's end
local function by_listed(prefix, after)
  while not full() do
    local from = after == '' and '[' .. prefix or '(' .. prefix .. after
    local members = redis.call('ZRANGEBYLEX', K['meta-tasks'], from, '[' .. prefix .. '\255', 'LIMIT', 0, batch_size())
    if #members == 0 then return nil end
    for _, member in ipairs(members) do
      after = string.sub(member, #prefix + 1)
      if in_state(after) then
        consider(after, redis.call('HGET', K['tasks'], after), decode_scanned)
      else
        read = read + 1
      end
      if full() then break end
    end
  end
  return 'm' .. after
end

-- a query that asks an exact value of a listed meta key walks the tasks
-- listed under it when they are fewer than the state's (oldest first, in
-- every state); a walk begun so that can no longer go on starts again
local listed, listed_count = nil, nil
-- (held tasks are not listed: they are not stored tasks yet)
if query ~= nil and state ~= 'held' then listed, listed_count = roots().listed_pair(query.meta) end
local by_id = string.sub(position, 1, 1) == 'm'
if by_id and listed == nil then position = '' end
if listed ~= nil and not by_id and (position ~= '' or listed_count > state_size()) then listed = nil end

local next_position = nil
step_spent() -- the clock starts here
if listed ~= nil then
  next_position = by_listed(listed, string.sub(position, 2))
elseif state == 'claimable' then
  local pools = { K['ready'], K['ready-cron'], K['ready-uni'], K['ready-prio'], K['aside'] }
  local pool = tonumber(string.sub(position, 1, 1)) or 1
  local after = string.sub(position, 2)
  while pool <= 5 do
    local last = by_member(pools[pool], after)
    if last ~= nil then
      next_position = pool .. last
      break
    end
    pool, after = pool + 1, ''
  end
elseif state == 'halted' then
  next_position = by_member(K['halted'], position)
elseif state == 'gate' then
  next_position = by_member(K['gate-templates'], position)
elseif state == 'owned' then
  next_position = by_score(K['leases'], position)
elseif state == 'waiting' then
  next_position = by_score(K['waiting'], position)
elseif state == 'cron' then
  next_position = by_score(K['templates'], position)
elseif state == 'broadcast' then
  next_position = by_score(K['broadcast'], position)
elseif state == 'all' then
  next_position = by_scan(position, K['tasks'])
elseif state == 'held' then
  next_position = by_scan(position, K['held'])
end
found[1] = next_position or ''
found[2] = tostring(read)
return found

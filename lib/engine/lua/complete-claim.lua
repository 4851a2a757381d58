#!lua flags=allow-oom
--[[ complete-claim: the worker runtime's common step, as one atomic step:
  for each entry in order, complete a task this worker owns (a delete,
  docs/semantics.md §3.3; none for an entry without an id) and claim the next
  for the entry's slot (a search, 3.2), the same outcome as those calls made
  one after another with nothing in between. delete-search.lua with what a
  worker's plain completion needs, passed apart so the script splits no
  string: on a plain queue each entry takes the lean path (include/lean.lua);
  an entry the lean path does not handle, and every entry after it, runs the
  general delete and search in the same call.

  KEYS         the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV         lists of lib/engine/lua/arguments.ts: complete_claim (the engine's
               own values in one, include/engine-args.lua), then per entry
               claim_entry; complete_claim's rare is '' or the JSON array claim_rare
               (the searches' rare arguments), `r` before it when the request
               may have run already (a first send looks for no kept answer);
               the request is passed as its key and number (include/request.lua)
  Returns  one flat array (a table in the answer costs Redis about 5,000
           instructions to convert; lib/engine/complete-claim.ts
           readClaimReplies reads it back), per entry, in order: delete
           result (1, 2 requeued, 0 no delete; a number), kind, id, record,
           floor, next due, resume, sequence back (see delete.lua,
           search.lua), or for a claim of the lean path 'l1' or 'l0' (the
           delete's result), id, record alone (the floor is the one passed,
           and the rest empty but resume 'lean'); or 'error', message when the entry's delete failed:
           its search did not run, and it wrote nothing; or 'later' for each
           entry left when the call had run the engine's stepTime (the first
           entry always runs): nothing of it was done, and the caller sends it
           again; then, when an entry took the general path or parked its
           slot, one last 'counts', emitted, halted: the children gate
           templates emitted and the tasks requeues halted (a call whose
           entries all took the lean path emits and halts none, and answers
           no counts unless one parked: its answer is the general search's)
  Errors   none: a failed delete is its entry's answer
]]
--- @include "step"
--- @include "request"
--- @include "owners"
--- @include "search-request"
--- @include "delete-request"
--- @include "folded-replay"
--- @include "lean"
--- @include "engine-args"
-- the general delete and search (delete-search.lua), defined once per
-- library load: built inside the call, a call that left the lean path spent
-- most of its work defining them
--- @include "delete"
--- @include "search"
--- @include "finish"

local engine = engine_args(ARGV[ARG.complete_claim.engine])
local now_text, worker = ARGV[ARG.complete_claim.now_ms], engine.worker
local expiry, expiry_ms = ARGV[ARG.complete_claim.expiry], ARGV[ARG.complete_claim.expiry_ms]
-- the clock as a number, made only for the general path and outcomes (a
-- call of a C function costs Redis about 1,200 instructions)
local now = nil
local request_key, request_number = ARGV[ARG.complete_claim.request_key], ARGV[ARG.complete_claim.request_number]
local retention, most = engine.retention, engine.most
local floors, park_for = ARGV[ARG.complete_claim.floors], engine.park_for
-- `rare` is prefixed with `r` when the request may have run already (sent
-- again by the engine or by ioredis: lib/engine/run.ts runRequest,
-- lua/command.ts Resend); only such a send can find its answer kept, as a
-- request id is never taken twice (lib/engine/requests.ts: a random instance
-- id per engine object, numbers that only grow). On a first send with no rare
-- arguments (the lean path's) telling costs one comparison of strings.
local rare, again = ARGV[ARG.complete_claim.rare], false
if rare ~= '' and string.byte(rare) == 114 then rare, again = string.sub(rare, 2), true end -- 'r'
-- each entry's claim_entry follows ARGV[first]
local FIRST, ENTRY_ARGUMENTS = #ARG.complete_claim, #ARG.claim_entry

-- general_searching: the search of the general path (search-request.lua's
-- request), read from the arguments when first needed
local function general_searching()
  now = now or tonumber(now_text)
  local none = {}
  local searching = {
    now = now,
    now_text = now_text,
    worker = worker,
    expiry = expiry,
    expiry_ms = expiry_ms,
    floor = string.match(floors, '^(%d+)'),
    base = string.match(floors, ':(%d+)$'),
    skip = none,
    redeliver = none,
    start_ms = engine.start_ms,
    exclude = none,
    self_key = engine.self_key,
    resume = '',
    slot = '',
    park_until = park_for == '' and '' or string.format('%d', now + tonumber(park_for)),
    filters = none,
    filter_ids = none,
    filter_json = none,
  }
  if rare ~= '' then
    local args = cjson.decode(rare)
    searching.redeliver = id_set(args[ARG.claim_rare.redeliver], none)
    searching.exclude = id_set(args[ARG.claim_rare.exclude], none)
    read_filters(searching, args[ARG.claim_rare.filters], args[ARG.claim_rare.filter_ids])
    searching.skip = id_set(args[ARG.claim_rare.skip], none)
  end
  return searching
end

-- flat: the nested answers of replay_folded as the one array this script answers
local function flat(replies)
  local out, n = {}, 0
  for _, reply in ipairs(replies) do
    for index = 1, #reply do out[n + index] = reply[index] end
    n = n + #reply
  end
  return out
end

-- only a request sent again can find its answer kept
if again and request_key ~= '' then
  local kept = replayed_at(request_key, request_number)
  if kept ~= nil then return flat(replay_folded(kept, general_searching())) end
end

-- the lean path's state while every entry so far took it; the general path's
-- context and search once one did not
local lean = nil
if rare == '' and lean_queue() then
  lean = new_lean(worker, engine.worker_json, engine.self_key, (#ARGV - FIRST) / ENTRY_ARGUMENTS)
end
local ctx, searching = nil, nil
local function go_general()
  if ctx ~= nil then return end
  now = now or tonumber(now_text)
  ctx = new_context(now)
  searching = general_searching()
  if lean ~= nil then
    -- what the lean entries changed: the owners count goes to finish, the
    -- claims counter is written now (the general path takes tokens next)
    ctx.owners[worker] = lean.delta
    lean.delta = 0
    lean_counts(lean)
    ctx.untailed = true -- the lean path ran: nobody tails the events
    lean = nil
  end
end

-- the slots of claims alone that are parked (a completion's slot is not: the
-- search that claimed its task unparked it); only the general search unparks.
-- A call of several entries reads the records it completes here too.
local parked = {}
if lean ~= nil then
  local slots, ids = {}, lean.claims_most > 1 and {} or nil
  for first = FIRST, #ARGV - 1, ENTRY_ARGUMENTS do
    local slot, id = ARGV[first + ARG.claim_entry.slot], ARGV[first + ARG.claim_entry.id]
    if id == '' then
      if slot ~= '' then slots[#slots + 1] = worker .. '\0' .. slot end
    elseif ids ~= nil then
      ids[#ids + 1] = id
    end
  end
  if ids ~= nil then lean_known(lean, ids) end
  if #slots > 0 then
    for index, value in ipairs(redis.call('HMGET', K['parked-slots'], unpack(slots))) do
      if value then parked[string.sub(slots[index], #worker + 2)] = true end
    end
  end
end

-- replies: the flat answer, `n` its length; `done` the entries answered.
-- Made with room for one entry that ran: a table grown one value at a time
-- is resized at 1, 2, 3 and 5 values (a nil ends the answer: what is not
-- set is not answered)
local replies, n, done, memory = { nil, nil, nil, nil, nil, nil, nil, nil }, 0, 0, {}
-- the entries run until the call has run its step (include/step.lua), the
-- first always; those left are answered 'later'. A call of one entry reads no
-- clock; a longer one reads it before each general entry, and every
-- STEP_EVERY lean entries (a lean entry's work is small and bounded: the step
-- ends at most that many entries late; a general search's bounded loops share
-- the step, and must not start with it spent).
local STEP_EVERY = 4
if FIRST + ENTRY_ARGUMENTS < #ARGV then step_spent() end
local later = false
for first = FIRST, #ARGV - 1, ENTRY_ARGUMENTS do
  later = later or (done > 0 and (lean == nil or done % STEP_EVERY == 0) and step_spent())
  done = done + 1
  if later then
    n = n + 1
    replies[n] = 'later'
    memory[#memory + 1] = '{"l":1}'
  else
    local id, token = ARGV[first + ARG.claim_entry.id], ARGV[first + ARG.claim_entry.token]
    local outcome, slot = given(ARGV[first + ARG.claim_entry.outcome]), ARGV[first + ARG.claim_entry.slot]
    local result = 0
    if id ~= '' then
      local answered, since = ARGV[first + ARG.claim_entry.record], ARGV[first + ARG.claim_entry.since]
      if lean ~= nil and lean_complete(lean, id, token, answered, since, outcome, now_text, retention, most) then
        result = 1
      else
        go_general()
        ctx.op = 'delete'
        result = delete({ now = now, id = id, worker = worker, token = given(token), outcome = outcome,
          retention = retention, outcome_most = most, bypass = false, requeue = false, defer_ok = true }, ctx)
        ctx.op = nil
      end
    end
    if type(result) == 'table' then
      replies[n + 1], replies[n + 2] = 'error', result.err
      n = n + 2
      memory[#memory + 1] = cjson.encode({ e = result.err })
    else
      local claimed, record, claim_token = nil, nil, nil
      local tried = lean ~= nil and not parked[slot]
      if tried then claimed, record, claim_token = lean_claim(lean, now_text, expiry, expiry_ms) end
      if claimed ~= nil then
        -- a claim of the lean path answered in three values (each costs
        -- Redis about 1,000 instructions to convert): 'l1' or 'l0' (its
        -- delete's result), id, record; the engine reads it as kind 'task'
        -- with the floors it sent and resume 'lean' (the record stays as
        -- answered until the task changes: lib/engine/search.ts). The
        -- result as text: a number in a concatenation is formatted with printf
        local done_text = result == 1 and '1' or '0'
        replies[n + 1], replies[n + 2], replies[n + 3] = result == 1 and 'l1' or 'l0', claimed, record
        n = n + 3
        -- claim_memory's text (include/folded-replay.lua) in one concatenation,
        -- without the id: the replay of a claim reads it from `c` (each byte
        -- kept costs Redis again as the call's answer is written)
        memory[#memory + 1] = '{"r":' .. done_text .. ',"k":"task","f":"' .. floors .. '","c":"' .. claimed .. ':'
          .. claim_token .. '"}'
      else
        local reply, claim = nil, nil
        if tried and lean.empty then
          -- nothing to claim: the slot parks on the lean path, with what the
          -- general search would write and answer (include/lean.lua lean_park)
          local parks = slot ~= '' and park_for ~= ''
          lean_park(lean, parks and worker .. '\0' .. slot or nil, parks and tonumber(now_text) + tonumber(park_for))
          reply = { result, answer('none', nil, nil, floors, '') }
        else
          go_general()
          searching.slot = slot
          ctx.claimed = nil
          reply = { result, search(searching, ctx) }
          claim = ctx.claimed
        end
        -- a search that ran out of its budget is resumed before the entries
        -- after it run: they come again in the next call
        if reply[2] == 'more' then later = true end
        for index = 1, 8 do replies[n + index] = reply[index] end
        n = n + 8
        memory[#memory + 1] = cjson.encode({ r = result, k = reply[2], i = reply[3], f = reply[5], d = reply[6],
          m = reply[7], b = reply[8], c = claim })
      end
    end
  end
end

-- a lean park answers the counts too, as the general search it stands for
if ctx ~= nil or lean.parked then
  local emitted, halted = ctx ~= nil and ctx.emitted or 0, ctx ~= nil and ctx.halted or 0
  replies[n + 1], replies[n + 2], replies[n + 3] = 'counts', emitted, halted
  memory[#memory + 1] = '{"n":' .. emitted .. ',"h":' .. halted .. '}'
end
if ctx ~= nil then
  finish(ctx)
else
  lean_counts(lean)
end
if request_key ~= '' then
  -- one concatenation for a call of one entry: each string made is interned
  if #memory == 1 then
    redis.call('HSET', K['requests'], request_key, request_number .. '|' .. now_text .. '|[' .. memory[1] .. ']')
  else
    remember_at(request_key, request_number, now_text, '[' .. table.concat(memory, ',') .. ']')
  end
end
return replies

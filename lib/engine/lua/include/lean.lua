-- lean: the worker's complete-and-claim for a plain queue, without the
-- context of the general path (complete-claim.lua). It writes what reindex
-- (include/reindex.lua) would for the one shape of task it handles: a plain
-- task (an `any` task without cron, gate or root that the circuit breaker does
-- not hold) is in `ready` while unowned and in `leases` and `owned` while
-- owned. Each step answers nil, having written nothing, for
-- anything else: the caller then runs the general delete or search for it.
-- conformance/delete/delete-search.spec.ts compares every key after either
-- path.
--- @include "features"
--- @include "task"
--- @include "owners"
--- @include "owned"
--- @include "outcome"
--- @include "parking"

-- lean_queue: whether the queue uses none of the features the lean path
-- leaves to the general one (followers, roots, listed meta keys, failed
-- attempts, broadcast, waiting or obsolete tasks, cron, unicast or
-- priority pools, pooled filters, an events stream someone tails, a pause,
-- flow controls, paused queries, tasks set aside or counted in lanes): one read of `features`
-- (include/features.lua). The one place that asks, read once a call.
-- A queue's features are few (a worker's queue: `parked-slots` alone, most
-- of the time): the fields in use are looked up in this set, and only a
-- queue that uses one of them goes through plain_queue's list (which clears
-- a field whose key is gone). Made once per library load.
local LEAN_STEPS_ASIDE = { followers = true, roots = true, watched = true, attempts = true, broadcast = true,
  waiting = true, ['obsolete-groups'] = true, promoted = true, ['root-jobs'] = true, ['ready-cron'] = true,
  ['ready-uni'] = true, ['ready-prio'] = true, ['filter-pools'] = true, events = true, paused = true,
  caps = true, ['cap-holders'] = true, rates = true, ['rate-windows'] = true, ['paused-queries'] = true,
  ['aside-of'] = true }
local function lean_queue()
  local used = features()
  if features_none_module then return true end -- no feature at all, without the set
  local aside = false
  for name in pairs(used) do
    if LEAN_STEPS_ASIDE[name] then
      aside = true
      break
    end
  end
  if not aside then return true end
  return plain_queue('followers', 'roots', 'watched', 'attempts', 'broadcast', 'waiting', 'obsolete-groups',
    'promoted', 'root-jobs', 'ready-cron', 'ready-uni', 'ready-prio', 'filter-pools', 'events', 'paused',
    'caps', 'cap-holders', 'rates', 'rate-windows', 'paused-queries', 'aside-of')
end

-- lean_plain: a decoded record the lean path handles (not owned is checked
-- apart); a unique task gives its key back in remove_task (include/remove-task.lua)
local function lean_plain(task)
  return task ~= nil and task.cron == nil and task.gate == nil and task.root == nil and method_of(task) == METHOD_ANY
    and not is_halted(task) and (task.core == nil or task.core[LABEL_UNIQUE] == nil)
end

-- lean_fresh: whether a record is of a plain task as created: no core (so
-- unowned and not halted), no node (so method any), no cron, gate or root
-- map. Told from the text: each map is a key of the record's object, and a
-- key's quotes are never escaped (a quote inside a label is), so a record
-- without these texts has none of these maps. One pattern finds any of the
-- five names, `"core":`, `"node":`, `"cron":`, `"gate":`, `"root":` (each
-- letter is in its class; a call of string.find costs Redis about 1,200
-- instructions, five of them most of a claim's Lua); a label or another key
-- of four letters that it also finds (`"rate":`) only sends the task to the
-- decoding below. Ids in `ready` name records that the engine's scripts
-- indexed, so the record is a task.
-- A record cut off (written by something else: docs/semantics.md §1.10)
-- does not end with the object's brace, and is decoded (and skipped).
local function lean_fresh(record)
  return record ~= '{}' and string.byte(record, -1) == 125 -- '}'
    and string.find(record, '"[cgnr][aoer][ortd][enot]":') == nil
end

-- lean: the state of one call. `worker`, `worker_json` (the worker as a JSON
-- string) and `self_key` are the caller's;
-- `delta` the change of its owners count not yet written; `held` whether a
-- completion of the call ended a task held for the worker; the share gate's
-- reads of `owners`, the heads of `ready` and whether outcomes exist are
-- read once
-- and `claims_most` how many claims the call may make (its entries);
-- `empty` whether the last lean_claim that found nothing found `ready`
-- empty, and `parked` whether the caller parked a slot (lean_park).
-- A call of several entries writes its completions and claims with one
-- command a structure (each redis.call costs Redis 2,000 to 5,000
-- instructions in the bridge alone): `gone` the ids completed, `taken` the
-- claims' arguments, not yet written (lean_flush); and reads what it
-- needs with one command too: `records` the completions' stored records
-- (lean_known), `head_records` those of the heads of `ready`.
local function new_lean(worker, worker_json, self_key, claims_most)
  -- every field the call may set is named, nil ones too: the table is made
  -- with room for all of them, where each field added later grew it again
  return { worker = worker, self_key = self_key, delta = 0, claims_most = claims_most, count = nil, stored = nil,
    before = nil, candidates = nil, heads = nil, head = nil, outcomes = nil, worker_json = worker_json, token_base = nil,
    tokens = nil, held = nil, empty = nil, parked = nil, gone = nil, taken = nil, records = nil,
    head_records = nil }
end

-- lean_known reads, for a call of several entries, the stored records of
-- the tasks it completes (`ids`) with one command. lean_complete keeps them
-- as its own writes change them (written later: lean_flush); a claim of the
-- call may change one only by claiming a task the call then completes with
-- a copy it had before: that copy's token is not in the record read, and
-- the general delete answers it as outdated.
local function lean_known(lean, ids)
  if ids[1] == nil then return end
  local records, known = redis.call('HMGET', K['tasks'], unpack(ids)), {}
  for index, id in ipairs(ids) do known[id] = records[index] end -- false: no record
  lean.records = known
end

-- lean_complete deletes task `id` that the call's worker owns under `token`
-- (delete() of a plain task: docs/semantics.md §3.3), recording its outcome;
-- true when done, nil (nothing written) when the general delete must run: the
-- task is not plain, or the copy is not of its current claim (the general
-- delete answers the TASK_OUTDATED or not-found error). `seen` is the record
-- as the claim of this copy answered it, or '': a stored record that is still
-- that string is of that claim (every change of a task rewrites its record,
-- and the claim's token is in it) and plain (the lean claim checked), so it
-- is not decoded unless its outcome is written. `since` is the instant that
-- claim's call was sent with (the `since` of its `owned` member), with `seen`.
local function lean_complete(lean, id, token, seen, since, outcome, now_text, retention, most)
  local known = lean.records
  local record = nil
  if known ~= nil then record = known[id] else record = redis.call('HGET', K['tasks'], id) end
  if not record then return nil end
  local worker = lean.worker
  local task = nil
  -- its owners count is held for whom `owned` says: the general path
  -- handles one held for another worker, or for nobody (a repair under way
  -- has not indexed the record yet)
  if record ~= seen then
    task = decode_stored(id, record)
    if not lean_plain(task) then return nil end
    local core = task.core
    if core[LABEL_WORKER] ~= worker or label_set(core, LABEL_TOKEN) ~= token then return nil end
    local member, holder = owned_holder(id)
    if holder ~= worker then return nil end
    redis.call('ZREM', K['owned'], member)
  elseif redis.call('ZREM', K['owned'], owned_entry(id, since, worker)) == 0 then
    -- the record is the very text this worker's claim wrote (its token in
    -- it): whoever wrote `owned` since wrote it for the record's owner (a
    -- claim, reindex), this worker, so the member that claim wrote is there
    -- unless a repair dropped it (under way) or wrote it anew (since ''):
    -- one ZREM reads and drops it; without it nothing was written
    return nil
  end
  lean.held = true
  if known ~= nil then known[id] = false end
  if lean.claims_most == 1 then
    redis.call('ZREM', K['leases'], id)
    redis.call('HDEL', K['tasks'], id)
  else
    local gone = lean.gone
    if gone == nil then
      gone = {}
      lean.gone = gone
    end
    gone[#gone + 1] = id
  end
  lean.delta = lean.delta - 1
  if lean.candidates ~= nil then lean.candidates = lean.candidates - 1 end
  -- the outcome's record is built only when kept or heard (record_outcome);
  -- with neither, only an older outcome of the id is dropped, if there are
  -- outcomes at all (one look a call: the lean path writes none then)
  if (retention > 0 and most > 0) or (watching_module ~= false and watched(id)) then
    record_outcome(id, 'completed', task or decode_stored(id, record), outcome, nil, tonumber(now_text), retention,
      most)
  else
    if lean.outcomes == nil then lean.outcomes = redis.call('EXISTS', K['outcomes']) == 1 end
    if lean.outcomes then record_outcome(id, 'completed', nil, outcome, nil, tonumber(now_text), retention, most) end
  end
  return true
end

-- lean_flush writes the completions and claims the call has not written
-- yet (a call of several entries: new_lean), one command a structure. Called
-- before anything reads what they change: the general path, the share
-- gate's look at `ready`, the call's end (lean_counts).
local function lean_flush(lean)
  local gone, taken = lean.gone, lean.taken
  if gone ~= nil then
    redis.call('ZREM', K['leases'], unpack(gone))
    redis.call('HDEL', K['tasks'], unpack(gone))
    lean.gone = nil
  end
  if taken ~= nil then
    redis.call('HSET', K['tasks'], unpack(taken.records))
    redis.call('ZREM', K['ready'], unpack(taken.ids))
    redis.call('ZADD', K['leases'], unpack(taken.leases))
    redis.call('ZADD', K['owned'], unpack(taken.owned))
    lean.taken = nil
  end
end

-- lean_share: the balancing share gate (docs/semantics.md §3.2 phase 3) with
-- no cron, unicast or due tasks: whether the worker may claim one more. The
-- lean path changes no count but its own worker's (share_inputs with that).
local function lean_share(lean)
  if lean.count == nil then
    lean.count = redis.call('HLEN', K['owners'])
    if lean.count == 0 then
      lean.stored = 0
    elseif lean.count == 1 and lean.held then
      -- the one owner is this worker: a completion of this call ended a
      -- task `owned` held for it, so its count was 1 or more (written at
      -- the call's end); alone, its own count is not needed
      lean.stored = 1
    else
      lean.stored = tonumber(redis.call('HGET', K['owners'], lean.worker) or '0')
    end
  end
  local workers = lean.count
  if lean.stored >= 1 then workers = workers - 1 end
  if workers == 0 then return true end -- alone: its share is every candidate
  if lean.before == nil then
    lean.before = redis.call('ZLEXCOUNT', K['owner-order'], '-', '(' .. lean.self_key)
    -- a claim not yet written is counted in `ready`, a completion not yet
    -- written in `leases`
    lean.candidates = redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['leases'])
      - (lean.gone ~= nil and #lean.gone or 0)
  end
  local candidates = lean.candidates
  workers = workers + 1
  local share = math.floor(candidates / workers)
  if lean.before < candidates % workers then share = share + 1 end
  return candidates > 0 and share - (lean.stored + lean.delta) > 0
end

-- lean_token: the fencing token of the call's next claim. A call of several
-- entries reads `claims` once and writes it once, at its end (lean_counts):
-- its claims take the numbers after it in order, as INCR would give them.
local function lean_token(lean)
  if lean.claims_most == 1 then return string.format('%d', redis.call('INCR', K['claims'])) end
  if lean.token_base == nil then
    lean.token_base, lean.tokens = tonumber(redis.call('GET', K['claims']) or '0'), 0
  end
  lean.tokens = lean.tokens + 1
  return string.format('%d', lean.token_base + lean.tokens)
end

-- lean_claim claims the head of `ready` for the call's worker (search()'s
-- phase 5 and reindex for a plain task): its id and stored record, or nil
-- (nothing written) when the general search must run: nothing to claim, the
-- share gate closed, or the head is not a plain task. With nil, `lean.empty`
-- says whether `ready` is empty (the caller may park the slot: lean_park).
-- `now_text`, `expiry` and `expiry_ms` as the search list's
-- (lib/engine/lua/arguments.ts).
local function lean_claim(lean, now_text, expiry, expiry_ms)
  if not lean_share(lean) then
    lean_flush(lean)
    lean.empty = redis.call('EXISTS', K['ready']) == 0
    return nil
  end
  -- a call of one claim pops the head of `ready` (and puts it back, with
  -- its score, when it is not a task the lean path claims); a longer call
  -- reads the heads once for the claims it may make: only these claims take
  -- from it while the lean path runs, oldest first
  local id, popped = nil, nil
  if lean.claims_most == 1 then
    popped = redis.call('ZPOPMIN', K['ready'])
    id = popped[1]
  else
    local heads = lean.heads
    if heads == nil then
      heads = redis.call('ZRANGE', K['ready'], 0, lean.claims_most - 1)
      lean.heads, lean.head = heads, 1
      -- their records: only this call's claims change them while it runs
      -- (its completions end owned tasks, which it does not claim)
      if heads[1] ~= nil then lean.head_records = redis.call('HMGET', K['tasks'], unpack(heads)) end
    end
    id = heads[lean.head]
  end
  -- no head: `ready` is empty (a longer call's heads run out only once
  -- its claims took every task `ready` had)
  lean.empty = id == nil
  if id == nil then return nil end
  local record = nil
  if popped ~= nil then record = redis.call('HGET', K['tasks'], id) else record = lean.head_records[lean.head] end
  local task = nil
  if record and not lean_fresh(record) then
    task = decode_stored(id, record)
    if not lean_plain(task) or owner_of(task) ~= nil then record = nil end
  end
  if not record then
    if popped ~= nil then redis.call('ZADD', K['ready'], popped[2], id) end -- as it was: nothing written
    return nil
  end
  local worker = lean.worker
  local token = lean_token(lean)
  if task == nil then
    -- the claim's labels go in front, and the rest of the record stays as
    -- it is, not decoded and encoded again
    record = '{"core":{"' .. LABEL_WORKER .. '":' .. lean.worker_json .. ',"' .. LABEL_EXPIRY .. '":"' .. expiry
      .. '","' .. LABEL_TOKEN .. '":"' .. token .. '"},' .. string.sub(record, 2)
  else
    local core = task.core -- decoded for this claim alone: changed in place
    core[LABEL_WORKER] = worker
    core[LABEL_EXPIRY] = expiry
    core[LABEL_TOKEN] = token
    record = encode_stored(task)
  end
  -- since: the call's instant, which the engine keeps with the claim and
  -- sends with its completion (lean_complete); the score a string: Redis
  -- turns a number into one with printf
  local member = owned_entry(id, now_text, worker)
  if popped ~= nil then
    redis.call('HSET', K['tasks'], id, record)
    redis.call('ZADD', K['leases'], expiry_ms, id)
    redis.call('ZADD', K['owned'], '0', member)
  else
    lean.head = lean.head + 1
    local taken = lean.taken
    if taken == nil then
      taken = { records = {}, ids = {}, leases = {}, owned = {} }
      lean.taken = taken
    end
    local count = #taken.ids
    taken.ids[count + 1] = id
    taken.records[2 * count + 1], taken.records[2 * count + 2] = id, record
    taken.leases[2 * count + 1], taken.leases[2 * count + 2] = expiry_ms, id
    taken.owned[2 * count + 1], taken.owned[2 * count + 2] = '0', member
  end
  lean.delta = lean.delta + 1
  -- nobody waits on any task, once known: no call (each costs the Lua work of a few lines)
  if watching_module ~= false then tell_claim(id, worker) end
  return id, record, token
end

-- lean_park parks the slot `slot_key` (nil: none) of an entry whose
-- lean_claim found `ready` empty until `deadline_ms`, as the general
-- search's idle() does for a search without filters: on a lean queue
-- nothing waits (no due time) and nothing else is claimable, so the general
-- search would find nothing, wake no other slot and write only this
local function lean_park(lean, slot_key, deadline_ms)
  if slot_key ~= nil then parking().park(slot_key, deadline_ms, { '' }) end
  lean.parked = true
end

-- lean_counts writes the change of the worker's owners count (write_counts
-- for the one worker the lean path counts for) and the claims counter
local function lean_counts(lean)
  lean_flush(lean)
  if lean.tokens ~= nil and lean.tokens > 0 then
    redis.call('INCRBY', K['claims'], lean.tokens)
    lean.token_base, lean.tokens = nil, nil
  end
  local delta = lean.delta
  lean.delta = 0
  if delta == 0 then return end
  local count = redis.call('HINCRBY', K['owners'], lean.worker, delta)
  if count <= 0 then
    redis.call('HDEL', K['owners'], lean.worker)
    redis.call('ZREM', K['owner-order'], lean.self_key)
  elseif count == delta then
    redis.call('ZADD', K['owner-order'], 0, lean.self_key) -- owns its first task
  end
end

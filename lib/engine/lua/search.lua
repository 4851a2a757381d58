#!lua
--[[ search: deliver a broadcast task, or claim the oldest task this worker may
  take (docs/semantics.md §3.2). The phases are include/search.lua.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the search list of lib/engine/lua/arguments.ts; floors: '<floor>:<base>',
           broadcast tasks stored up to <floor> are settled for this engine and
           these filters, up to <base> for any filters (lib/engine/broadcast-ledger.ts);
           park_until: with no work, the slot parks until a task it may take
           comes, or this deadline passes; request: a claim sent again answers
           the same task, and claims no other (prefixed with `r` when sent
           again: only then is a kept answer looked for)

  Returns  { kind, id, record, floor, next due, resume, sequence back }
           kind 'broadcast' (nothing written), 'task' (claimed), 'none', or
           'more' (the step ran out of its budget: run it again with `resume`);
           the task's id and record in the stored form (lib/task/codec.ts);
           floor: the new '<floor>:<base>';
           next due: the earliest due time of a waiting task, or '' (with 'none');
           resume: with 'more', the resume argument of the next step; with
           'task', 'lean' when the lean claim made it (include/lean.lua);
           sequence back: '1' when the queue's sequence counter is below the
           floor (Redis went back in time): the engine walks again from the start
           Woken slots hear of it on the queue's signal channel (include/finish.lua)
  Errors   none
]]
--- @include "request"
--- @include "owners"
--- @include "search-request"
--- @include "search"
--- @include "finish"
--- @include "lean"

local request = search_request(0)
local kept = request.again and replayed(request.request) or nil
if kept ~= nil then return { replay_claim(kept, request) } end

-- a plain queue and a search with nothing but a slot (a slot woken for a
-- new task, most often: the task that woke it is the head of `ready`): the
-- lean claim (include/lean.lua), as a worker's complete-and-claim makes it.
-- A slot still parked, a queue or a request it does not handle, or nothing
-- it may claim: the general search below, nothing written before it.
if request.resume == '' and request.filters[1] == nil and next(request.skip) == nil
  and next(request.redeliver) == nil and next(request.exclude) == nil and lean_queue()
  and (request.slot == '' or not redis.call('HGET', K['parked-slots'], request.worker .. '\0' .. request.slot)) then
  local lean = new_lean(request.worker, cjson.encode(request.worker), request.self_key, 1)
  local id, record, token = lean_claim(lean, request.now_text, request.expiry, request.expiry_ms)
  if id ~= nil then
    lean_counts(lean)
    remember(request.request, request.now, id .. ':' .. token)
    -- resume 'lean': the engine keeps the record with the task, so its
    -- completion need not decode it (lib/engine/search.ts leanClaim)
    return { answer('task', id, record, request.floor .. ':' .. request.base, '', 'lean') }
  end
end

local ctx = new_context(request.now)
local reply = { search(request, ctx) }
finish(ctx)
if reply[1] == 'task' then remember(request.request, request.now, ctx.claimed) end
return reply

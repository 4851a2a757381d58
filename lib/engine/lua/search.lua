#!lua
--[[ search: deliver a broadcast task, or claim the oldest task this worker may
  take (docs/semantics.md §3.2). The phases are include/search.lua.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the search list of lib/engine/lua/arguments.ts; floors: '<floor>:<base>',
           broadcast tasks stored up to <floor> are settled for this engine and
           these filters, up to <base> for any filters (lib/engine/broadcast-ledger.ts);
           park_until: with no work, the slot parks until a task it may take
           comes, or this deadline passes; request: a claim sent again answers
           the same task, and claims no other

  Returns  { kind, id, record, floor, next due, resume, sequence back }
           kind 'broadcast' (nothing written), 'task' (claimed), 'none', or
           'more' (the step ran out of its budget: run it again with `resume`);
           the task's id and record in the stored form (lib/task/codec.ts);
           floor: the new '<floor>:<base>';
           next due: the earliest due time of a waiting task, or '' (with 'none');
           resume: with 'more', the resume argument of the next step;
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

local request = search_request(0)
local kept = replayed(request.request)
if kept ~= nil then return { replay_claim(kept, request) } end
local ctx = new_context(request.now)
local reply = { search(request, ctx) }
finish(ctx)
if reply[1] == 'task' then remember(request.request, request.now, ctx.claimed) end
return reply

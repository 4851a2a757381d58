#!lua
--[[ search: deliver a broadcast task, or claim the oldest task this worker may
  take (docs/semantics.md §3.2). The phases are include/search.lua.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms
  ARGV[2]  worker       this engine's worker id
  ARGV[3]  expiry       formatTime(now + expiry): the lease end of a claim
  ARGV[4]  expiry_ms    the same in ms
  ARGV[5]  filters      JSON array of the filters' JSON texts, tried in turn, or '' (no filter)
  ARGV[6]  floors       '<floor>:<base>': broadcast tasks stored up to <floor> are settled
                        for this engine and these filters, up to <base> for any filters
                        (lib/engine/broadcast-ledger.ts)
  ARGV[7]  skip         JSON array of broadcast ids above the floor this engine received, or ''
  ARGV[8]  redeliver    JSON array of broadcast ids it received whose local lease ended, or ''
  ARGV[9]  start_ms     the engine's start instant: older broadcast tasks are not for it
  ARGV[10] exclude      JSON array of ids not to claim (the worker runtime's declined tasks), or ''
  ARGV[11] self_key     where the worker sorts among the owners (lib/engine/keys.ts workerOrderKey)
  ARGV[12] resume       where the pick resumes: '' (the start), or what a 'more' answer said
  ARGV[13] filter_ids   the filters' ids (lib/engine/filters.ts), each followed by ','
  ARGV[14] slot         the worker runtime's slot that searches, or ''
  ARGV[15] park_until   '' or a deadline (ms): with no work, the slot parks until
                        a task it may take comes, or this deadline passes
  ARGV[16] request      the idempotent request (include/request.lua): a claim
                        sent again answers the same task, and claims no other

  Returns  { kind, id, record, floor, next due, resume, sequence back }
           kind 'broadcast' (nothing written), 'task' (claimed), 'none', or
           'more' (the step ran out of its budget: run it again with `resume`);
           the task's id and record in the stored form (lib/task/codec.ts);
           floor: the new '<floor>:<base>';
           next due: the earliest due time of a waiting task, or '' (with 'none');
           resume: with 'more', the ARGV[12] of the next step;
           sequence back: '1' when the queue's sequence counter is below the
           floor (Redis went back in time): the engine walks again from the start
           Woken slots hear of it on the queue's signal channel (include/index.lua finish)
  Errors   none
]]
--- @include "request"
--- @include "owners"
--- @include "search-request"
--- @include "search"
--- @include "finish"

local request = search_request(1)
local kept = replayed(request.request)
if kept ~= nil then return { replay_claim(kept, request) } end
local ctx = new_context(request.now)
local reply = { search(request, ctx) }
finish(ctx)
if reply[1] == 'task' then remember(request.request, request.now, ctx.claimed) end
return reply

--[[ search: deliver a broadcast task, or claim the oldest task this worker may
  take (semantics 3.2). The phases are include/search.lua.

  KEYS     every key of the queue
  ARGV[1]  now_ms
  ARGV[2]  worker       this engine's worker id
  ARGV[3]  expiry       formatTime(now + expiry): the lease end of a claim
  ARGV[4]  expiry_ms    the same in ms
  ARGV[5]  filters      JSON array of the filters' JSON texts, tried in turn, or '' (no filter)
  ARGV[6]  floor        broadcast tasks stored up to this sequence number are done
                        for this engine, or were created before it started
  ARGV[7]  done         JSON array of later broadcast ids this engine completed
  ARGV[8]  leased       JSON array of broadcast ids under this engine's local lease
  ARGV[9]  start_ms     the engine's start instant: older broadcast tasks are not for it
  ARGV[10] exclude      JSON array of ids not to claim (the worker runtime's declined tasks), or ''
  ARGV[11] self_key     where the worker sorts among the owners (lib/engine/keys.ts workerOrderKey)
  ARGV[12] resume       where the pick resumes: '' (the start), or what a 'more' answer said
  ARGV[13] filter_ids   the filters' ids (lib/engine/filters.ts), each followed by ','
  ARGV[14] slot         the worker runtime's slot that searches, or ''
  ARGV[15] park_until   '' or a deadline (ms): with no work, the slot parks until
                        a task it may take comes, or this deadline passes

  Returns  { kind, id, record, floor, next due, resume }
           kind 'broadcast' (nothing written), 'task' (claimed), 'none', or
           'more' (the step ran out of its budget: run it again with `resume`);
           the task's id and record in the stored form (lib/task/codec.ts);
           floor: the sequence number up to which every broadcast task is done
           for this engine or predates it;
           next due: the earliest due time of a waiting task, or '' (with 'none');
           resume: with 'more', the ARGV[12] of the next step. Woken slots
           hear of it on the queue's signal channel (include/index.lua finish)
  Errors   none
]]
--- @include "task"
--- @include "has"
--- @include "index"
--- @include "walk"
--- @include "search"

local request = search_request(1)
local ctx = new_context(request.now)
local reply = { search(request, ctx) }
finish(ctx)
return reply

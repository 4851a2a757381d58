#!lua flags=allow-oom
--[[ delete-search: complete tasks and claim the next ones, as one atomic
  step: for each entry in order, a delete (docs/semantics.md §3.3) followed by a search
  (3.2), the same outcome as those calls made one after another with nothing
  in between. The worker runtime uses it so that finishing a task and
  fetching the next costs one round trip, and folds the completions of its
  slots into one call when several finish at once.

  KEYS         the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV         lists of lib/engine/lua/arguments.ts: folded_search (the search the
               entries share: the same request again answers the same,
               include/request.lua), delete_search, then per entry folded_delete
               (include/delete-request.lua folded_delete_request) and
               entry_search (the rest of the entry's search); the delete's
               instant is the search's
  Returns  per entry, in order: { delete result, kind, id, record, floor, next due, resume }
           (see delete.lua, search.lua), or { 'error', message } when the
           entry's delete failed: its search did not run, and it wrote nothing;
           or { 'later' } for each entry left when the call had run the
           engine's stepTime (the first entry always runs): nothing of it was
           done, and the caller sends it again;
           then one last { 'counts', emitted, halted }: the children gate
           templates emitted and the tasks requeues halted, all entries together
  Errors   none: a failed delete is its entry's answer
]]
--- @include "step"
--- @include "request"
--- @include "owners"
--- @include "search-request"
--- @include "delete-request"
--- @include "plain"
--- @include "folded-replay"

-- the general delete and search, defined once per library load (as in
-- complete-claim.lua): built inside the call, a call that left the plain
-- path spent most of its work defining them
--- @include "delete"
--- @include "search"
--- @include "finish"
-- whether an entry took the general path: only then does the call finish
local went_general = false

local searching = folded_search_request()

-- a request sent again: the same deletes' answers, the same claims while they
-- hold (include/folded-replay.lua), and nothing written
local kept = replayed(searching.request)
if kept ~= nil then return replay_folded(kept, searching) end

local ctx = new_context(searching.now)
local replies = {}
local memory = {}
local slot_keys = {}
local retention = tonumber(ARGV[#ARG.folded_search + ARG.delete_search.retention])
local outcome_most = tonumber(ARGV[#ARG.folded_search + ARG.delete_search.most])
-- each entry's arguments follow ARGV[first]: its folded_delete, then its entry_search
local FIRST, ENTRY_ARGUMENTS = #ARG.folded_search + #ARG.delete_search, #ARG.folded_delete + #ARG.entry_search
for first = FIRST, #ARGV - 1, ENTRY_ARGUMENTS do
  local slot = ARGV[first + #ARG.folded_delete + ARG.entry_search.slot]
  if slot ~= '' then slot_keys[#slot_keys + 1] = searching.worker .. '\0' .. slot end
end
read_parked(slot_keys, ctx)
read_plain(ctx)

-- the entries run until the call has run its step (include/step.lua), the
-- first always; those left are answered 'later' and come again in the next
-- call. A call of one entry reads no clock here.
if FIRST + ENTRY_ARGUMENTS < #ARGV then step_spent() end -- a second entry: the clock starts
local later = false
for first = FIRST, #ARGV - 1, ENTRY_ARGUMENTS do
  later = later or (#replies > 0 and step_spent())
  if later then
    replies[#replies + 1] = { 'later' }
    memory[#memory + 1] = '{"l":1}'
  else
    -- the entry's delete, then its search
    local deleting = folded_delete_request(first, searching.now, retention, outcome_most)
    local result = plain_delete(deleting, ctx)
    if result == nil then
      ctx.op = 'delete'
      went_general = true
      result = delete(deleting, ctx)
      ctx.op = nil
      -- the general path may have stored what a plain search must not pass over
      ctx.plain_queue, ctx.plain_candidates = nil, nil
    end
    if type(result) == 'table' then
      replies[#replies + 1] = { 'error', result.err }
      memory[#memory + 1] = cjson.encode({ e = result.err })
    else
      local at = first + #ARG.folded_delete
      read_filters(searching, ARGV[at + ARG.entry_search.filters], ARGV[at + ARG.entry_search.filter_ids])
      searching.slot, searching.park_until = ARGV[at + ARG.entry_search.slot], ARGV[at + ARG.entry_search.park_until]
      searching.floor = string.match(ARGV[at + ARG.entry_search.floors], '^(%d+)')
      searching.base = string.match(ARGV[at + ARG.entry_search.floors], ':(%d+)$')
      searching.skip = id_set(ARGV[at + ARG.entry_search.skip], {})
      ctx.claimed = nil
      local plain = plain_search(searching, ctx)
      if plain ~= nil then
        replies[#replies + 1] = { result, unpack(plain) }
        memory[#memory + 1] = claim_memory(result == 2 and '2' or '1', plain[2], plain[4], ctx.claimed)
      else
        went_general = true
        local reply = { result, search(searching, ctx) }
        ctx.plain_queue, ctx.plain_candidates = nil, nil
        replies[#replies + 1] = reply
        memory[#memory + 1] = cjson.encode({ r = result, k = reply[2], i = reply[3], f = reply[5], d = reply[6],
          m = reply[7], b = reply[8], c = ctx.claimed })
      end
    end
  end
end
replies[#replies + 1] = { 'counts', ctx.emitted, ctx.halted }
memory[#memory + 1] = '{"n":' .. ctx.emitted .. ',"h":' .. ctx.halted .. '}'

-- the plain path notes only owners counts and events
if went_general then finish(ctx) else write_counts(ctx) end
remember(searching.request, searching.now, '[' .. table.concat(memory, ',') .. ']')
return replies

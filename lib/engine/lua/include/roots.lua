-- roots: leaves (tasks with a root that is not an emitted child's), and the
-- tasks whose meta makes them obsolete (docs/semantics.md §3.2 phase 2, rule 7).
-- Built on first use: a queue without leaves never needs it.
--- @include "features"
--- @include "task"
--- @include "step"
--- @include "has"
--
-- Leaves with the same root form a group (`roots`: group id -> its root; the
-- id is 16 hex digits of the SHA-1 of the root's labels in key order), whose
-- leaves `root-leaves` lists. A group is obsolete once a witness is known: a
-- task whose meta has the root (`witnesses`, `obsolete-groups`); search then
-- deletes the group's leaves, a bounded number per step.
--
-- Witnesses are found without reading the queue on the common path:
--   * a group of an exact root (no patterns) is anchored at one of its pairs
--     (`root-anchors`: the pair with the fewest groups anchored so far);
--     a task stored with that pair in its meta is checked against the groups
--     anchored there. For the tasks stored before the group, `meta-tasks`
--     lists the tasks by the meta pairs of the keys exact roots name
--     (`watched`), and a job walks the rarest pair of the root.
--   * a group of a root with patterns (`wild-roots`, at most WILD_ROOTS_MOST)
--     is checked against every task stored; a job scans the tasks stored
--     before.
-- The same `meta-tasks` lists the keys an engine's metaIndexes option
-- declares (`meta-indexes`), for listings (scan.lua) by an exact value.
-- Jobs (`root-jobs`, first in first out) are the only work that grows with
-- the queue: indexing a key a root names for the first time, looking for the
-- witness of a new group among the tasks stored before. Each script does at
-- most JOB_MOST records of them; a small queue's jobs end in the create that
-- made them. Each also stops once the call's time is spent (include/step.lua).

local JOB_MOST = 256
-- records a job reads between two looks at the call's time (include/step.lua):
-- listing a key's pairs costs about 22 µs a record at 1M (a random insert
-- into `meta-tasks`), 16 of them about 0.35 ms
local JOB_BATCH = 16
local WILD_ROOTS_MOST = 256

local roots_module = nil
local function roots()
  if roots_module ~= nil then return roots_module end
  local M = {}

  -- a label as one string that says where it ends
  local function pair_code(key, value)
    return #key .. ':' .. key .. #value .. ':' .. value
  end

  function M.group_of(root)
    local parts = {}
    for _, key in ipairs(sorted_keys(root)) do parts[#parts + 1] = pair_code(key, root[key]) end
    return string.sub(redis.sha1hex(table.concat(parts)), 1, 16)
  end

  function M.is_exact(root)
    for key, value in pairs(root) do
      if not is_exact_key(key) or value == '*' then return false end
    end
    return true
  end

  -- the group's { a = anchor pair code ('' for patterns), r = root }, or nil
  local function group(gid)
    local json = redis.call('HGET', K['roots'], gid)
    if not json then return nil end
    return cjson.decode(json)
  end

  -- the last part of the members `<prefix>\0<part>` of a lex zset
  local function under(key, prefix, limit)
    local members = redis.call('ZRANGEBYLEX', key, '[' .. prefix .. '\0', '[' .. prefix .. '\0\255', 'LIMIT', 0, limit)
    local parts = {}
    for _, member in ipairs(members) do parts[#parts + 1] = string.sub(member, #prefix + 2) end
    return parts
  end

  local function count_under(key, prefix)
    return redis.call('ZLEXCOUNT', key, '[' .. prefix .. '\0', '[' .. prefix .. '\0\255')
  end

  local function witness(gid, id)
    redis.call('HSET', K['witnesses'], gid, id)
    redis.call('ZADD', K['obsolete-groups'], 0, gid)
    use_feature('obsolete-groups')
  end

  -- index_meta lists (add) or unlists a task under the meta pairs of the
  -- watched keys
  function M.index_meta(id, meta, add)
    if meta == nil or next(meta) == nil then return end
    local keys = {}
    for key in pairs(meta) do keys[#keys + 1] = key end
    local flags = redis.call('HMGET', K['watched'], unpack(keys))
    for index, key in ipairs(keys) do
      if flags[index] then
        local member = pair_code(key, meta[key]) .. '\0' .. id
        if add then
          redis.call('ZADD', K['meta-tasks'], 0, member)
        else
          redis.call('ZREM', K['meta-tasks'], member)
        end
      end
    end
  end

  -- wanted: whether a group wants the task as its witness: it has none, or
  -- one of its own leaves (which is no witness for itself)
  local function wanted(gid, id)
    local current = redis.call('HGET', K['witnesses'], gid)
    if not current then return true end
    return current ~= id and redis.call('ZSCORE', K['root-leaves'], gid .. '\0' .. current) ~= false
  end

  -- announce: a task was stored with this meta; the groups it holds get it as
  -- their witness
  function M.announce(id, meta)
    if meta == nil or next(meta) == nil then return end
    for key, value in pairs(meta) do
      for _, gid in ipairs(under(K['root-anchors'], pair_code(key, value), 1000)) do
        if wanted(gid, id) then
          local info = group(gid)
          if info ~= nil and has(meta, info.r) then witness(gid, id) end
        end
      end
    end
    if redis.call('EXISTS', K['wild-roots']) == 1 then
      for _, gid in ipairs(redis.call('ZRANGE', K['wild-roots'], 0, -1)) do
        if wanted(gid, id) then
          local info = group(gid)
          if info ~= nil and has(meta, info.r) then witness(gid, id) end
        end
      end
    end
  end

  local function watch_key(key)
    if redis.call('HSETNX', K['watched'], key, 'k') == 1 then
      use_feature('watched')
      redis.call('RPUSH', K['root-jobs'], cjson.encode({ t = 'k', key = key, c = '0' }))
      use_feature('root-jobs')
    end
  end

  -- declare: an engine's metaIndexes option names the key: its pairs are
  -- listed in `meta-tasks` from now on, kept while no root needs them too
  function M.declare(key)
    redis.call('HSETNX', K['meta-indexes'], key, '1')
    watch_key(key)
  end

  -- listed_pair: the code (and `\0`) under which `meta-tasks` lists the tasks
  -- that may match a query's meta, and how many it lists: of its pairs of an
  -- exact key and value whose key is listed to the end (`watched` '1'), the
  -- one with the fewest tasks; nil when it has none
  function M.listed_pair(meta)
    if meta == nil or redis.call('EXISTS', K['watched']) == 0 then return nil end
    local keys, values = {}, {}
    for key, value in pairs(meta) do
      if value ~= '*' and is_exact_key(key) then
        keys[#keys + 1] = key
        values[#values + 1] = value
      end
    end
    if #keys == 0 then return nil end
    local flags = redis.call('HMGET', K['watched'], unpack(keys))
    local best, fewest = nil, nil
    for index, key in ipairs(keys) do
      if flags[index] == '1' then
        local code = pair_code(key, values[index])
        local listed = count_under(K['meta-tasks'], code)
        if fewest == nil or listed < fewest then best, fewest = code, listed end
      end
    end
    if best == nil then return nil end
    return best .. '\0', fewest
  end

  -- whether a new leaf's group may be made: there is room for another root
  -- with patterns
  function M.room_for(root)
    if M.is_exact(root) or redis.call('ZCARD', K['wild-roots']) < WILD_ROOTS_MOST then return true end
    return redis.call('HEXISTS', K['roots'], M.group_of(root)) == 1
  end

  function M.register(id, task)
    local gid = M.group_of(task.root)
    redis.call('ZADD', K['root-leaves'], 0, gid .. '\0' .. id)
    if redis.call('HEXISTS', K['roots'], gid) == 1 then return end
    if M.is_exact(task.root) then
      local anchor, fewest = nil, nil
      for _, key in ipairs(sorted_keys(task.root)) do
        watch_key(key)
        local code = pair_code(key, task.root[key])
        local anchored = count_under(K['root-anchors'], code)
        if fewest == nil or anchored < fewest then anchor, fewest = code, anchored end
      end
      redis.call('HSET', K['roots'], gid, cjson.encode({ a = anchor, r = task.root }))
      use_feature('roots')
      redis.call('ZADD', K['root-anchors'], 0, anchor .. '\0' .. gid)
      redis.call('RPUSH', K['root-jobs'], cjson.encode({ t = 'w', g = gid }))
      use_feature('root-jobs')
    else
      redis.call('HSET', K['roots'], gid, cjson.encode({ a = '', r = task.root }))
      use_feature('roots')
      redis.call('ZADD', K['wild-roots'], 0, gid)
      redis.call('RPUSH', K['root-jobs'], cjson.encode({ t = 's', g = gid, c = '0' }))
      use_feature('root-jobs')
    end
    M.work(JOB_MOST)
  end

  local function drop_group(gid)
    local info = group(gid)
    redis.call('HDEL', K['roots'], gid)
    if info ~= nil and info.a ~= '' then redis.call('ZREM', K['root-anchors'], info.a .. '\0' .. gid) end
    redis.call('ZREM', K['wild-roots'], gid)
    redis.call('ZREM', K['obsolete-groups'], gid)
    redis.call('HDEL', K['witnesses'], gid)
    -- the last group gone: the queue keeps no meta index until a root or an
    -- engine's metaIndexes needs one (a declared key keeps every key listed)
    if redis.call('EXISTS', K['roots'], K['meta-indexes']) == 0 then
      redis.call('UNLINK', K['watched'], K['meta-tasks'], K['root-jobs'])
    end
  end

  function M.unregister(id, task)
    local gid = M.group_of(task.root)
    redis.call('ZREM', K['root-leaves'], gid .. '\0' .. id)
    if count_under(K['root-leaves'], gid) == 0 then drop_group(gid) end
  end

  -- the jobs, each given its state and how many records it may still read;
  -- each answers whether it is done, and how many records are left
  local jobs = {}

  -- k: list the stored tasks under the pairs of a key roots name from now on
  -- (the tasks stored meanwhile are listed as they come)
  function jobs.k(job, left)
    local reply = redis.call('HSCAN', K['tasks'], job.c, 'COUNT', math.min(left, JOB_BATCH))
    job.c = reply[1]
    local entries = reply[2]
    -- a record that does not name the key is passed over undecoded (has.lua)
    local spelled = { quoted(job.key) }
    for index = 1, #entries, 2 do
      local json = entries[index + 1]
      local task = may_match(json, spelled) and decode_scanned(entries[index], json) or nil
      local value = task ~= nil and task.meta ~= nil and task.meta[job.key] or nil
      if value ~= nil then
        redis.call('ZADD', K['meta-tasks'], 0, pair_code(job.key, value) .. '\0' .. entries[index])
      end
    end
    left = left - math.max(1, #entries / 2)
    if job.c ~= '0' then return false, left end
    redis.call('HSET', K['watched'], job.key, '1')
    use_feature('watched')
    return true, left
  end

  -- w: the witness of an exact root among the tasks listed under its rarest pair
  function jobs.w(job, left)
    local info = group(job.g)
    if info == nil or redis.call('HEXISTS', K['witnesses'], job.g) == 1 then return true, left end
    if job.p == nil then
      for key, value in pairs(info.r) do
        local code = pair_code(key, value)
        local listed = count_under(K['meta-tasks'], code)
        if job.p == nil or listed < job.n then job.p, job.n = code, listed end
      end
    end
    local from = job.c ~= nil and '(' .. job.p .. '\0' .. job.c or '[' .. job.p .. '\0'
    local page = math.min(left, JOB_BATCH)
    local members = redis.call('ZRANGEBYLEX', K['meta-tasks'], from, '[' .. job.p .. '\0\255', 'LIMIT', 0, page)
    for _, member in ipairs(members) do
      local id = string.sub(member, #job.p + 2)
      job.c = id
      local task = id ~= job.x and load_task(id) or nil
      if task ~= nil and has(task.meta, info.r) then
        witness(job.g, id)
        return true, left - 1
      end
    end
    return #members < page, left - math.max(1, #members)
  end

  -- s: the witness of a root with patterns among the stored tasks
  function jobs.s(job, left)
    local info = group(job.g)
    if info == nil or redis.call('HEXISTS', K['witnesses'], job.g) == 1 then return true, left end
    local reply = redis.call('HSCAN', K['tasks'], job.c, 'COUNT', math.min(left, JOB_BATCH))
    job.c = reply[1]
    local entries = reply[2]
    -- a record without a value the root asks for exactly is passed over undecoded (has.lua)
    local spelled = spelled_values({ meta = info.r })
    for index = 1, #entries, 2 do
      local id, json = entries[index], entries[index + 1]
      local task = id ~= job.x and may_match(json, spelled) and decode_scanned(id, json) or nil
      if task ~= nil and has(task.meta, info.r) then
        witness(job.g, entries[index])
        return true, left - 1
      end
    end
    return job.c == '0', left - math.max(1, #entries / 2)
  end

  -- work runs the jobs, oldest first, until they are done, `left` records
  -- were read or `share` of the call's time is spent (include/step.lua);
  -- says whether none is left
  function M.work(left, share)
    while left > 0 do
      local json = redis.call('LINDEX', K['root-jobs'], 0)
      if not json then return true end
      local job = cjson.decode(json)
      local done
      done, left = jobs[job.t](job, left)
      if done then
        redis.call('LPOP', K['root-jobs'])
      else
        redis.call('LSET', K['root-jobs'], 0, cjson.encode(job))
      end
      if step_spent(share) then break end -- the next call goes on
    end
    return redis.call('EXISTS', K['root-jobs']) == 0
  end

  -- a witness again for a group whose witness went, or was one of its own
  -- leaves (`except`: that one does not count)
  local function look_again(gid, info, except)
    redis.call('HDEL', K['witnesses'], gid)
    redis.call('ZREM', K['obsolete-groups'], gid)
    if info.a ~= '' then
      redis.call('RPUSH', K['root-jobs'], cjson.encode({ t = 'w', g = gid, x = except }))
      use_feature('root-jobs')
    else
      redis.call('RPUSH', K['root-jobs'], cjson.encode({ t = 's', g = gid, c = '0', x = except }))
      use_feature('root-jobs')
    end
  end

  -- sweep deletes the leaves of obsolete groups (remove(id, task) deletes a
  -- task), at most `left`; says whether none is left. The step judges the
  -- queue as it found it: a witness it deleted still counts. A leaf that is
  -- itself its group's witness is obsolete only by another task (another
  -- leaf of the group included), else the group looks for another witness.
  function M.sweep(left, remove)
    local gone = {}
    local function delete(id, task)
      gone[id] = task
      remove(id, task)
      left = left - 1
      if step_spent() then left = 0 end -- the call's time spent: the next step goes on
    end
    for _, gid in ipairs(redis.call('ZRANGE', K['obsolete-groups'], 0, 15)) do
      local info = group(gid)
      local holder = redis.call('HGET', K['witnesses'], gid)
      local held = holder and (gone[holder] or load_task(holder))
      if info == nil then
        redis.call('ZREM', K['obsolete-groups'], gid)
        redis.call('HDEL', K['witnesses'], gid)
      elseif held == nil or not has(held.meta, info.r) then
        look_again(gid, info)
        return false -- the next step looks first
      else
        local holder_is_leaf = false
        local other_witness = false
        for _, leaf_id in ipairs(under(K['root-leaves'], gid, left + 1)) do
          local leaf = load_task(leaf_id)
          if leaf == nil or not shape_of(leaf).leaf or M.group_of(leaf.root) ~= gid then
            redis.call('ZREM', K['root-leaves'], gid .. '\0' .. leaf_id) -- a stale entry
          elseif leaf_id == holder then
            holder_is_leaf = true
          elseif left <= 0 then
            return false
          else
            if has(leaf.meta, info.r) then other_witness = true end
            delete(leaf_id, leaf)
          end
        end
        if holder_is_leaf then
          if other_witness then
            if left <= 0 then return false end
            delete(holder, held)
          else
            look_again(gid, info, holder)
            return false
          end
        end
        -- a group whose entries were all stale (records something else changed)
        if redis.call('HEXISTS', K['roots'], gid) == 1 and count_under(K['root-leaves'], gid) == 0 then
          drop_group(gid)
        end
      end
    end
    return redis.call('EXISTS', K['obsolete-groups']) == 0
  end

  roots_module = M
  return M
end

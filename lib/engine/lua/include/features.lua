-- features: which optional structures a queue uses, in one small hash
-- (`features`: name -> '1'), so that a hot path learns with one read that it
-- need not look at any of them (docs/cost-model.md). A field is named after
-- the key it stands for. The script that writes a feature's first datum sets
-- its field (use_feature, in the same script): a field is never missing while
-- its key exists. A field may outlive its key (the key emptied, or a TTL
-- ended): plain_queue clears such a field when it meets it. repair-start
-- recomputes the hash from the keys (rebuild_features).
--
-- API (stable: other paths call it):
--   features()          the table of used features, { [name] = true }, read once a call
--   features(true)      that table when this call read it already, else nil (reads
--                       nothing; one function, not two: each is an upvalue of
--                       every function that calls it, and Lua allows 60)
--   use_feature(name)   a script wrote a datum of the feature `name`
--   plain_queue(...)    true when none of the named features is in use (may write:
--                       it clears fields whose key is gone)

local features_module = nil
-- whether the hash read had no field (set with features_module: a call of
-- next() costs Redis about 1,200 instructions; use_feature clears it)
local features_none_module = nil
local function read_features()
  if features_module ~= nil then return features_module end
  local used = {}
  local flat = redis.call('HGETALL', K['features'])
  for index = 1, #flat, 2 do used[flat[index]] = true end
  features_module, features_none_module = used, #flat == 0
  return used
end

local function features(peek)
  if peek then return features_module end
  return read_features()
end

local function use_feature(name)
  local used = read_features()
  if used[name] then return end
  redis.call('HSET', K['features'], name, '1')
  used[name] = true
  features_none_module = false
end

-- feature_key: the key a feature's field stands for (nil: not a feature)
local function feature_key(name)
  if name == 'followers' then return K['followers']
  elseif name == 'roots' then return K['roots']
  elseif name == 'watched' then return K['watched']
  elseif name == 'attempts' then return K['attempts']
  elseif name == 'broadcast' then return K['broadcast']
  elseif name == 'waiting' then return K['waiting']
  elseif name == 'obsolete-groups' then return K['obsolete-groups']
  elseif name == 'promoted' then return K['promoted']
  elseif name == 'root-jobs' then return K['root-jobs']
  elseif name == 'ready-cron' then return K['ready-cron']
  elseif name == 'ready-uni' then return K['ready-uni']
  elseif name == 'ready-prio' then return K['ready-prio']
  elseif name == 'filters' then return K['filters']
  elseif name == 'filter-pools' then return K['filter-pools']
  elseif name == 'parked-slots' then return K['parked-slots']
  elseif name == 'events' then return K['events']
  elseif name == 'paused' then return K['paused']
  elseif name == 'caps' then return K['caps']
  elseif name == 'cap-holders' then return K['cap-holders']
  elseif name == 'rates' then return K['rates']
  elseif name == 'rate-windows' then return K['rate-windows']
  elseif name == 'paused-queries' then return K['paused-queries']
  elseif name == 'aside-of' then return K['aside-of']
  elseif name == 'aside-refill' then return K['aside-refill']
  end
  return nil
end

local function plain_queue(...)
  local used = read_features()
  if features_none_module then return true end
  local plain = true
  for index = 1, select('#', ...) do
    local name = select(index, ...)
    if used[name] then
      local key = feature_key(name)
      if key ~= nil and redis.call('EXISTS', key) == 0 then
        redis.call('HDEL', K['features'], name) -- its key is gone: the field is stale
        used[name] = nil
      else
        plain = false
      end
    end
  end
  return plain
end

-- rebuild_features: the hash anew from the keys, once repair-start dropped
-- it (the indexes it drops set their fields again as repair indexes records)
local function rebuild_features()
  features_module, features_none_module = {}, true
  for _, name in ipairs({ 'followers', 'roots', 'watched', 'attempts', 'broadcast', 'waiting', 'obsolete-groups',
    'promoted', 'root-jobs', 'ready-cron', 'ready-uni', 'ready-prio', 'filters', 'filter-pools', 'parked-slots', 'events',
    'paused', 'caps', 'cap-holders', 'rates', 'rate-windows', 'paused-queries', 'aside-of', 'aside-refill' }) do
    if redis.call('EXISTS', feature_key(name)) == 1 then use_feature(name) end
  end
end

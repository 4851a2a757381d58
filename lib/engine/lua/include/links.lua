-- links: the lex zsets that tie tasks together (gate keys, children, watched
-- root pairs), built on first use. reindex indexes gate templates and
-- children here; delete finds a gate's tasks and ticker a template's children
-- through it.
--- @include "id-length"

local links_module = nil
local function links()
  if links_module ~= nil then return links_module end
  local M = {}

  -- ids of the members `<prefix>\0<id>` of a lex zset
  function M.ids_under(key, prefix)
    local members = redis.call('ZRANGEBYLEX', key, '[' .. prefix .. '\0', '[' .. prefix .. '\0\255')
    local ids = {}
    for _, member in ipairs(members) do
      if string.sub(member, 1, -(ID_LENGTH + 2)) == prefix then
        ids[#ids + 1] = string.sub(member, -ID_LENGTH)
      end
    end
    return ids
  end

  function M.index_gate_template(id, gate, add)
    for key in pairs(gate) do
      if add then
        redis.call('ZADD', K['gates'], 0, key .. '\0' .. id)
      else
        redis.call('ZREM', K['gates'], key .. '\0' .. id)
      end
    end
    if add then redis.call('ZADD', K['gate-templates'], 0, id) else redis.call('ZREM', K['gate-templates'], id) end
  end

  -- ids of a template's children, oldest first
  function M.children_of(template_id)
    local members = redis.call('ZRANGEBYLEX', K['children'], '[' .. template_id, '[' .. template_id .. '\255')
    local ids = {}
    for _, member in ipairs(members) do
      if #member == #template_id + ID_LENGTH and string.sub(member, 1, #template_id) == template_id then
        ids[#ids + 1] = string.sub(member, -ID_LENGTH)
      end
    end
    return ids
  end

  -- a cron template that lost its last child may need tick-1 maintenance
  function M.child_gone(template_id)
    if redis.call('ZSCORE', K['templates'], template_id) and #M.children_of(template_id) == 0 then
      redis.call('ZADD', K['ticker-check'], '-inf', template_id)
    end
  end

  links_module = M
  return M
end

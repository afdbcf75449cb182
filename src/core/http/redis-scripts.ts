/**
 * The Lua scripts of the shared pacing store (redis-pacing.ts): each update
 * of a fleet's admissions, holds and budgets is one of these, run on the
 * server, so two machines never admit the same last slot.
 */

// KEYS: admitted, hold. ARGV: now, member, then limit/window pairs.
// The rule of admit() in pacing.ts, on a sorted set, plus the hold in force.
export const RESERVE = `
local now = tonumber(ARGV[1])
local span = 0
local keep = 0
for i = 3, #ARGV, 2 do
  local limit, win = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  if win > span then span = win end
  if limit > keep then keep = limit end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. (now + span), '+inf')
local wait = 0
local hold = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if hold > now then wait = hold - now end
for i = 3, #ARGV, 2 do
  local limit, win = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  if redis.call('ZCOUNT', KEYS[1], '(' .. (now - win), '+inf') >= limit then
    if limit <= 0 then
      if win > wait then wait = win end
    else
      local r = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', '(' .. (now - win), 'WITHSCORES', 'LIMIT', limit - 1, 1)
      local w = tonumber(r[2]) + win - now
      if w > wait then wait = w end
    end
  end
end
if wait > 0 then return wait end
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(keep + 1))
redis.call('PEXPIRE', KEYS[1], span)
return 0
`;

// KEYS: hold, budget. ARGV: now, resource ('' for none).
export const HELD = `
local now = tonumber(ARGV[1])
local wait = 0
local hold = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if hold > now then wait = hold - now end
if ARGV[2] ~= '' then
  local raw = redis.call('HGET', KEYS[2], ARGV[2])
  if raw then
    local ok, b = pcall(cjson.decode, raw)
    local skew = 0
    if ok and type(b) == 'table' and type(b.skewMs) == 'number' then skew = b.skewMs end
    if ok and type(b) == 'table' and b.remaining == 0 and type(b.reset) == 'number' and b.reset * 1000 - skew > now then
      local w = b.reset * 1000 - skew - now + 1000
      if w > wait then wait = w end
    end
  end
end
return wait
`;

// KEYS: hold. ARGV: until, now. A later hold in force stays.
export const HOLD = `
local untilMs, now = tonumber(ARGV[1]), tonumber(ARGV[2])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if untilMs > cur and untilMs > now then redis.call('SET', KEYS[1], ARGV[1], 'PX', untilMs - now) end
return 0
`;

// KEYS: budget. ARGV: resource, entry (JSON), reset (s), remaining, time to live (ms).
// A newer window replaces an older one; within one window the lower remaining stays.
export const BUDGET = `
local reset, remaining = tonumber(ARGV[3]), tonumber(ARGV[4])
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  local ok, b = pcall(cjson.decode, raw)
  if ok and type(b) == 'table' and type(b.reset) == 'number' and type(b.remaining) == 'number' then
    if b.reset > reset or (b.reset == reset and b.remaining < remaining) then return 0 end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local ttl = tonumber(ARGV[5])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`;

// KEYS: admitted. ARGV: admitted at, answered at (ms).
// One admission at the first time moves to the second (any member of that score: they are alike);
// the set lives on for as long again as the move.
export const RESTAMP = `
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
if to <= from then return 0 end
local m = redis.call('ZRANGEBYSCORE', KEYS[1], from, from, 'LIMIT', 0, 1)
if not m[1] then return 0 end
redis.call('ZADD', KEYS[1], 'XX', to, m[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl + (to - from)) end
return 1
`;

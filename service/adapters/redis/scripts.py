"""The Lua scripts the job store runs in Redis: each one atomic step.

Jobs per state, for /metrics, are a hash (KEYS[3] of ADVANCE, KEYS[8] of CREATE and
DISCARD) moved in the same scripts that move the jobs: a job counts once its record has
``counted``=1, set by CREATE, or by COUNT for a job stored before the counters existed.
Queued and running jobs per tenant, for the quotas, are one hash (fields "<tenant> <state>",
the last KEYS of ADVANCE, CREATE and DISCARD) moved the same way for a job with
``tcounted``=1, set by CREATE (a job stored before them is not counted)."""

from service.domain.job import JobStatus

# Each status's rank (JobStatus.rank) as a Lua table: status only moves to a higher one.
ORDER = "{" + ", ".join(f"{s.value}={s.rank}" for s in JobStatus) + "}"

# Status only moves forward, and never out of a terminal state.
# KEYS: job hash, active set, jobs-per-state hash, tenant counts.
# ARGV: status, field, value, ..., job id.
ADVANCE = (
    "local order = "
    + ORDER
    + """
local cur = redis.call('HGET', KEYS[1], 'status')
if not cur then return 0 end
if order[cur] >= 2 or order[ARGV[1]] < order[cur] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], unpack(ARGV, 2, #ARGV - 1))
if order[ARGV[1]] >= 2 then redis.call('SREM', KEYS[2], ARGV[#ARGV]) end
if cur ~= ARGV[1] and redis.call('HGET', KEYS[1], 'counted') == '1' then
  redis.call('HINCRBY', KEYS[3], cur, -1)
  redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
end
if cur ~= ARGV[1] and redis.call('HGET', KEYS[1], 'tcounted') == '1' then
  local t = redis.call('HGET', KEYS[1], 'tenant')
  redis.call('HINCRBY', KEYS[4], t .. ' ' .. cur, -1)
  if order[ARGV[1]] < 2 then redis.call('HINCRBY', KEYS[4], t .. ' ' .. ARGV[1], 1) end
end
return 1
"""
)

# Every trace of a job, and its place in the counts.
# KEYS: job hash, seg, done, remaining, deliveries, tenant zset, active set, jobs-per-state
# hash, tenant counts. ARGV: job id, the tenant's idempotency key prefix.
DISCARD = """
local rec = redis.call('HMGET', KEYS[1], 'status', 'counted', 'idem', 'tcounted', 'tenant')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('ZREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
-- The idempotency key only while it still names this job: expired and reused, it is another's.
if rec[3] and rec[3] ~= '' then
  local cur = redis.call('GET', ARGV[2] .. rec[3])
  if cur and string.sub(cur, -(#ARGV[1] + 1)) == ' ' .. ARGV[1] then
    redis.call('DEL', ARGV[2] .. rec[3])
  end
end
if rec[1] and rec[2] == '1' then redis.call('HINCRBY', KEYS[8], rec[1], -1) end
if (rec[1] == 'queued' or rec[1] == 'running') and rec[4] == '1' then
  redis.call('HINCRBY', KEYS[9], rec[5] .. ' ' .. rec[1], -1)
end
"""

# Count, once, the job records among KEYS[2..] not counted yet. KEYS[1]: jobs-per-state.
COUNT = """
local n = 0
for i = 2, #KEYS do
  local status = redis.call('HGET', KEYS[i], 'status')
  if status and redis.call('HSETNX', KEYS[i], 'counted', 1) == 1 then
    redis.call('HINCRBY', KEYS[1], status, 1)
    n = n + 1
  end
end
return n
"""

# The Idempotency-Key part of CREATE: a key already used with another body is a conflict;
# with the same body, the job it made is the answer (unless that job is gone).
_IDEMPOTENCY = """
if KEYS[7] ~= '' then
  local cur = redis.call('GET', KEYS[7])
  if cur then
    local sep = string.find(cur, ' ', 1, true)
    local hash, id = string.sub(cur, 1, sep - 1), string.sub(cur, sep + 1)
    if hash ~= string.sub(ARGV[2], 1, string.find(ARGV[2], ' ', 1, true) - 1) then
      return {'conflict'}
    end
    if redis.call('HEXISTS', ARGV[3] .. id, 'id') == 1 then return {'exists', id} end
  end
  redis.call('SET', KEYS[7], ARGV[2], 'EX', tonumber(ARGV[4]))
end
"""

# KEYS: job hash, remaining, seg hash, tenant zset, active set, queue list (the tenant's
#       lane, adapters/redis/lanes.py), idem key or "", jobs-per-state hash, tenant counts, the
#       set of tenants with a lane (so the dispatcher finds the new work).
# ARGV: deadline (ms, Redis clock), idem value "<body hash> <id>", job key prefix, ttl,
#       n record fields, fields..., n segments, n messages, messages...
CREATE = (
    """
local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[1]) then
  return {'late'}
end
"""
    + _IDEMPOTENCY
    + """
local n = tonumber(ARGV[5])
local i = 6
local fields = {}
for j = 1, 2 * n do fields[j] = ARGV[i + j - 1] end
i = i + 2 * n
redis.call('HSET', KEYS[1], unpack(fields))
local segs = tonumber(ARGV[i])
i = i + 1
redis.call('SET', KEYS[2], segs)
for j = 0, segs - 1 do redis.call('HSET', KEYS[3], tostring(j), '{"state": "queued"}') end
local id = redis.call('HGET', KEYS[1], 'id')
redis.call('ZADD', KEYS[4], redis.call('HGET', KEYS[1], 'created_ms'), id)
redis.call('SADD', KEYS[5], id)
redis.call('HSET', KEYS[1], 'counted', 1)
redis.call('HINCRBY', KEYS[8], 'queued', 1)
redis.call('HSET', KEYS[1], 'tcounted', 1)
redis.call('HINCRBY', KEYS[9], redis.call('HGET', KEYS[1], 'tenant') .. ' queued', 1)
local m = tonumber(ARGV[i])
for j = 1, m do redis.call('LPUSH', KEYS[6], ARGV[i + j]) end
if m > 0 then redis.call('SADD', KEYS[10], redis.call('HGET', KEYS[1], 'tenant')) end
return {'created'}
"""
)

# Mark progress, but never recreate the record of a job deleted meanwhile.
TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'updated', ARGV[1]) end
"""

# A worker's heartbeat, on Redis's own clock (so the hosts' clocks do not matter), and the
# delivery tags it holds. KEYS: beats hash, held hash. ARGV: worker instance, held (JSON).
BEAT = """
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], ARGV[1], t[1] .. '.' .. string.format('%06d', tonumber(t[2])))
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
"""

# The writes a step makes to a job's keys, each only while the job's record exists: a step
# that finishes after its job was deleted must not bring back the keys the delete removed.
# KEYS: job hash, the key written. ARGV: field, value, now.
SEGMENT_STATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'updated', ARGV[3])
return 1
"""

# KEYS: job hash, done set, remaining counter. ARGV: segment index. Returns the segments
# still to go after this one (-1: a redelivery of a counted segment, or no such job).
SEGMENT_DONE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return -1 end
return redis.call('DECR', KEYS[3])
"""

# KEYS: job hash, hash to count in. ARGV: field. Returns the new count (0: no such job).
COUNT_IF_JOB = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
"""

# KEYS: job hash. ARGV: field, value pairs. HSET on an existing record only.
UPDATE_IF_JOB = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# A token bucket of ARGV[1] submissions a minute (as many at once), on Redis's clock. KEYS:
# the tenant's bucket. Returns "0" when a token was taken, else the seconds until one is
# there (as a string: Redis would truncate a Lua number). The key expires once it would be
# full again, so an idle tenant keeps nothing.
BUCKET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local cap = tonumber(ARGV[1])
local rate = cap / 60
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or cap
local at = tonumber(b[2]) or now
tokens = math.min(cap, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], 61)
return tostring(wait)
"""

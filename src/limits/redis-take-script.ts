/**
 * The take script of RedisCounterStore: MemoryCounterStore.take's whole step, run inside Redis so
 * that the check and the count can never interleave with another replica's.
 *
 * One client's hash (window `i` is WINDOWS[i - 1]; every value is a string the script wrote):
 *   s<i>, c<i>   the window's start and count
 *   rs, rc       the minute window the refusals belong to, and their count
 *   bu           when the ban ends (ms), 0 when none
 *   l<i>, pt, pb the policy held for the minute window `rs` (limits, ban threshold, ban ms)
 * Numbers travel as text: 'inf' and '-inf' for infinities, other values as JS's String() or Lua's
 * %.17g, both of which read back to the same double (Lua's own number replies would be truncated).
 *
 * "Now" and the window starts come from the sandbox clock, never Redis TIME: a workspace's clock may
 * be frozen or moved. ARGV: now, n, the n window starts (the first is the minute), the n limits,
 * ban threshold, ban ms, when the longest window ends, and the expiry's slack. The reply is the
 * outcome's kind followed by the fields written, as HGETALL would list them.
 */
export const TAKE_SCRIPT = `
local now, n = tonumber(ARGV[1]), tonumber(ARGV[2])
local function num(s)
  if s == 'inf' then return math.huge elseif s == '-inf' then return -math.huge end
  return tonumber(s)
end
local function str(x)
  if x == math.huge then return 'inf' elseif x == -math.huge then return '-inf' end
  return string.format('%.17g', x)
end
local stored, flat = {}, redis.call('HGETALL', KEYS[1])
for i = 1, #flat, 2 do stored[flat[i]] = flat[i + 1] end
local function same(field, value) return stored[field] ~= nil and tonumber(stored[field]) == tonumber(value) end
local counts = {}
for i = 1, n do counts[i] = same('s' .. i, ARGV[2 + i]) and tonumber(stored['c' .. i]) or 0 end
local minute = ARGV[3]
local current = same('rs', minute)
local refusals = current and tonumber(stored.rc) or 0
-- The policy held since the minute window began; a new window takes the one given now.
local limits, threshold, banMs = {}, ARGV[3 + 2 * n], ARGV[4 + 2 * n]
if current and stored.pt ~= nil then
  for i = 1, n do limits[i] = stored['l' .. i] or 'inf' end
  threshold, banMs = stored.pt, stored.pb
else
  for i = 1, n do limits[i] = ARGV[2 + n + i] end
end
local banned = num(stored.bu or '0')
if banned <= now then banned = 0 end
local kind = 'banned'
if banned <= now then
  local room = true
  for i = 1, n do if counts[i] >= num(limits[i]) then room = false end end
  if room then
    kind = 'admitted'
    for i = 1, n do counts[i] = counts[i] + 1 end
  else
    kind = 'refused'
    refusals = refusals + 1
    if refusals >= num(threshold) then
      banned = now + num(banMs)
      refusals = 0
    end
  end
end
local fields = { 'rs', minute, 'rc', str(refusals), 'bu', str(banned), 'pt', threshold, 'pb', banMs }
for i = 1, n do
  for _, v in ipairs({ 's' .. i, ARGV[2 + i], 'c' .. i, str(counts[i]), 'l' .. i, limits[i] }) do fields[#fields + 1] = v end
end
redis.call('HSET', KEYS[1], unpack(fields))
-- Idle clients vanish once nothing in the hash can matter (the longest window and the ban are over), plus slack.
local ttl = math.ceil(math.max(num(ARGV[5 + 2 * n]), banned) - now + num(ARGV[6 + 2 * n]))
if ttl < 1e15 then redis.call('PEXPIRE', KEYS[1], string.format('%d', ttl)) else redis.call('PERSIST', KEYS[1]) end
table.insert(fields, 1, kind)
return fields
`;

export const encodeNumber = (x: number): string => (x === Infinity ? 'inf' : x === -Infinity ? '-inf' : String(x));

export const decodeNumber = (s: string | undefined): number => (s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s ?? 0));

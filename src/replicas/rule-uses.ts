import type { Redis } from 'ioredis';
import type { RuleUses } from '../rules/rule-store.js';

/** The script's name on the client (defineCommand sends EVALSHA, and the source again on NOSCRIPT). */
const COMMAND = 'understudyRuleUse';

/**
 * One use of a rule with `times`, taken in Redis so that the check and the count never interleave
 * with another replica's: 1 when taken, 0 when the rule's `times` are used up. KEYS[1] is the hash
 * of uses (one field per rule, by its `uid`: ids start again at `rule_1` after a reset, uids never);
 * ARGV is the field and the rule's `times`.
 */
export const USE_SCRIPT = `
local used = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if used >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
return 1
`;

interface WithUse {
  [COMMAND](key: string, field: string, times: string): Promise<unknown>;
}

/** Rules' uses counted once for the whole deployment: `times: N` is N across every replica. */
export function redisRuleUses(redis: Redis, prefix: string): RuleUses {
  redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: USE_SCRIPT });
  const key = `${prefix}state:rule-uses`;
  return {
    take: async (uid, times) => (await (redis as unknown as WithUse)[COMMAND](key, uid, String(times))) === 1,
    set: async (uid, used) => {
      await redis.hset(key, uid, String(used));
    },
  };
}

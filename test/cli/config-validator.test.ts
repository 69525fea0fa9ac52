import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load-config.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';

// The build writes the config's validator as code (scripts/config-validator.mjs) so that a start
// does not compile the schema; it must judge every config exactly as the compiled schema does.
const GENERATED = fileURLToPath(new URL('../../dist/config/config-validator.js', import.meta.url));

// prettier-ignore
const CONFIGS: readonly [string, Record<string, unknown>][] = [
  ['the defaults', {}],
  ['a field the schema does not know', { colour: 'blue' }],
  ['a port out of range and a string seed', { port: 70000, seed: 'one' }],
  ['a plan missing its day limit', { plans: { a: { perMinute: 5 } }, anonymousPlan: 'a' }],
  ['a key on no plan, a short admin token', { keys: [{ key: 'k', plan: 'nope' }], adminToken: 'short' }],
  ['an fsync policy that is not one', { fsync: 'sometimes' }],
  ['a Redis section with a bad outage', { redis: { url: 'redis://127.0.0.1:1', outage: 'maybe' } }],
];

const verdict = (tree: Record<string, unknown>, validate?: ValidateFunction): string => {
  try {
    checkConfig({ ...DEFAULT_CONFIG, ...tree }, validate);
    return 'valid';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('the config validator the build writes', () => {
  it.each(CONFIGS)('judges %s as the compiled schema does', async (name, tree) => {
    const { default: generated } = (await import(GENERATED)) as { default: ValidateFunction };
    const expected = verdict(tree);
    expect(expected === 'valid').toBe(name === 'the defaults');
    expect(verdict(tree, generated)).toBe(expected);
  });
});

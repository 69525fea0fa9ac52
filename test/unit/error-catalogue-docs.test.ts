import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS, problemType, TITLES, type ErrorCode } from '../../src/vocabulary/errors.js';

const PAGE = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** docs/errors.md is where each problem type URI is described: every code of the catalogue is there, with its title. */
describe('the error catalogue and its page', () => {
  it.each(Object.keys(ERRORS) as ErrorCode[])('%s is described with its title', (code) => {
    const row = PAGE.split('\n').find((line) => line.startsWith('|') && line.includes(`\`${code}\``));
    expect(row).toBeDefined();
    expect(row).toContain(TITLES[code]);
  });

  it('gives each code a tag: URI of its own (RFC 4151), as the page says', () => {
    expect(problemType('route_not_found')).toBe('tag:understudy.dev,2026:problem:route_not_found');
    expect(PAGE).toContain('tag:understudy.dev,2026:problem:<code>');
  });
});

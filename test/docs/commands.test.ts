import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECKOUT } from '../support/checkout-copy.js';
import { backgroundPorts, parseDoc, stepsOf, type Step } from './doc-blocks.js';
import { BLOCK_TIMEOUT_MS, installed, PagePass, READY_TIMEOUT_MS, SHELLS } from './doc-session.js';

/**
 * Every fenced command of the README and docs/ runs, as a reader would run it, in bash and in zsh:
 * the convention (which blocks run, and the doc-test comments that skip a block, start a server,
 * start a block in the background or write a file) is test/docs/doc-blocks.ts's. Each page runs
 * in a copy of the checkout of its own (test/support/checkout-copy.ts), against a sandbox of its
 * own, with TOKEN (its admin token) and BASE (its address) exported, and the documented address
 * (localhost:4010, 127.0.0.1:4010) rewritten to its real one, as is a background block's port.
 *
 * DOC_TEST_FILES (paths from the checkout's root, separated by commas or spaces) runs those pages
 * instead, e.g. `DOC_TEST_FILES=README.md npx vitest run test/docs/commands.test.ts`.
 */

/** The harness's own pages: each kind of block, all of which pass. */
const FIXTURES = ['test/docs/fixtures/commands.md'];

function pages(): string[] {
  const chosen = process.env.DOC_TEST_FILES?.split(/[\s,]+/).filter((page) => page !== '');
  if (chosen !== undefined && chosen.length > 0) return chosen;
  const docs = readdirSync(join(CHECKOUT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`)
    .sort();
  return ['README.md', ...docs, ...FIXTURES];
}

/** A test's name: where the block is, and what it is when it is not a command. */
function nameOf(page: string, step: Step): string {
  const what =
    step.kind === 'file'
      ? ` (file ${step.name})`
      : step.kind === 'server'
        ? ' (server)'
        : step.kind === 'background'
          ? ` (background ${step.port})`
          : '';
  return `${page}:${step.line}${what}`;
}

/**
 * Both passes start alike: a fresh copy of the checkout and the default sandbox, started anew (not
 * reset), with the page's server blocks starting theirs again in the page's order. A reset would
 * keep the last server block's sandbox serving, with its flags, the blocks before that server
 * block in the second pass, and would keep the files the first pass wrote: the second pass would
 * not see the page as a reader does. The bash pass runs over the whole page first, so that a
 * block that depends on an earlier one (a POST, then the GET that finds it) runs after it.
 */
for (const page of pages()) {
  const parsed = parseDoc(readFileSync(join(CHECKOUT, page), 'utf8'));
  const steps = stepsOf(parsed);

  describe(page, () => {
    it(`${page}: its doc-test comments are each just before a fence, with a known directive`, () => {
      expect(parsed.errors, `${page}:\n${parsed.errors.join('\n')}`).toEqual([]);
    });
    if (steps.length === 0) return;

    for (const shell of SHELLS) {
      const available = installed(shell);
      describe.skipIf(!available)(available ? shell.name : `${shell.name} (not installed)`, () => {
        const pass = new PagePass(page, shell, backgroundPorts(steps));
        afterAll(() => pass.close(), 30_000);
        for (const step of steps) {
          it(nameOf(page, step), () => pass.step(step), BLOCK_TIMEOUT_MS + 2 * READY_TIMEOUT_MS + 30_000);
        }
      });
    }
  });
}

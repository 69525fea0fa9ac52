import { describe, expect, it } from 'vitest';
import { parseDirective, parseDoc, stepsOf, withPort } from '../docs/doc-blocks.js';

/** Markdown from lines, so that the fences in a sample are easy to read. */
const md = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** The fenced blocks of the README and docs/ and what the doc tests do with them (test/docs/commands.test.ts). */
describe('the doc tests’ reading of a page', () => {
  it('runs sh blocks, and no block of any other info string', () => {
    const page = parseDoc(
      md(
        '# Title',
        '',
        '```sh',
        'curl -fsS "$BASE/v1/pets"',
        '```',
        '',
        '```bash',
        'echo no',
        '```',
        '```',
        'plain',
        '```',
        '```sh title="x"',
        'echo yes',
        '```',
      ),
    );
    expect(page.errors).toEqual([]);
    expect(page.blocks.map((b) => [b.line, b.lang])).toEqual([
      [3, 'sh'],
      [7, 'bash'],
      [10, ''],
      [13, 'sh'],
    ]);
    expect(stepsOf(page)).toEqual([
      { kind: 'run', line: 3, script: 'curl -fsS "$BASE/v1/pets"\n' },
      { kind: 'run', line: 13, script: 'echo yes\n' },
    ]);
  });

  it('skips a block with a reason, and rejects a skip without one', () => {
    const page = parseDoc(md('<!-- doc-test: skip: needs a container engine -->', '```sh', 'docker compose up', '```'));
    expect(page.blocks[0]?.directive).toEqual({ kind: 'skip', reason: 'needs a container engine' });
    expect(stepsOf(page)).toEqual([]);
    for (const comment of [
      '<!-- doc-test: skip -->',
      '<!-- doc-test: skip: -->',
      '<!-- doc-test: skip:    -->',
      '<!-- doc-test: skip because -->',
    ]) {
      expect(parseDoc(md(comment, '```sh', 'true', '```')).errors, comment).toEqual([
        'line 1: a skip needs a reason: <!-- doc-test: skip: REASON -->',
      ]);
    }
  });

  it('starts a server block, and writes a file block for the blocks after it', () => {
    const page = parseDoc(
      md(
        '<!-- doc-test: file understudy.yaml -->',
        '```yaml',
        'spec: openapi/petstore.yaml',
        '```',
        '<!-- doc-test: server -->',
        '```sh',
        'npm start -- --config understudy.yaml --seed 7',
        '```',
      ),
    );
    expect(page.errors).toEqual([]);
    expect(stepsOf(page)).toEqual([
      { kind: 'file', line: 2, name: 'understudy.yaml', content: 'spec: openapi/petstore.yaml\n' },
      { kind: 'server', line: 6, script: 'npm start -- --config understudy.yaml --seed 7\n' },
    ]);
  });

  it('takes a fence of four backticks as one block, with the ``` lines inside it as content', () => {
    const page = parseDoc(md('````markdown', '```sh', 'exit 1', '```', '````', '```sh', 'true', '```'));
    expect(page.errors).toEqual([]);
    expect(page.blocks).toEqual([
      { line: 1, lang: 'markdown', content: '```sh\nexit 1\n```\n' },
      { line: 6, lang: 'sh', content: 'true\n' },
    ]);
    // A ~~~ fence is closed by ~~~ only; a ``` with an info string closes nothing.
    expect(parseDoc(md('~~~', '```', '~~~')).blocks).toEqual([{ line: 1, lang: '', content: '```\n' }]);
    expect(parseDoc(md('```', '```sh', '```')).blocks).toEqual([{ line: 1, lang: '', content: '```sh\n' }]);
  });

  it('reads an indented fence in a list item, its directive indented as well, without the indentation', () => {
    const page = parseDoc(
      md('- first:', '', '  <!-- doc-test: server -->', '  ```sh', '  npm start -- --seed 7', '    --no-watch', '  ```', '- second'),
    );
    expect(page.errors).toEqual([]);
    expect(stepsOf(page)).toEqual([{ kind: 'server', line: 4, script: 'npm start -- --seed 7\n  --no-watch\n' }]);
  });

  it('rejects a doc-test comment that is not just before a fence, an unknown directive, or a misplaced one', () => {
    const errors = (...lines: string[]) => parseDoc(md(...lines)).errors;
    expect(errors('<!-- doc-test: server -->', '', '```sh', 'npm start', '```')).toEqual([
      "line 1: a doc-test comment must be on the line just before a block's opening fence",
    ]);
    expect(errors('text', '<!-- doc-test: skip: at the end -->')).toEqual([
      "line 2: a doc-test comment must be on the line just before a block's opening fence",
    ]);
    expect(errors('<!-- doc-test: only -->', '```sh', 'true', '```')).toEqual([
      'line 1: unknown directive "only" (skip: REASON, server, file NAME)',
    ]);
    expect(errors('Use <!-- doc-test: server --> before it.', '```sh', 'true', '```')).toEqual([
      'line 1: a doc-test comment is a whole line of its own: <!-- doc-test: DIRECTIVE -->',
    ]);
    expect(errors('<!-- doc-test: server -->', '```yaml', 'a: 1', '```')).toEqual([
      'line 1: a server directive on a "yaml" block: only sh blocks run',
    ]);
    expect(errors('<!-- doc-test: file x.sh -->', '```sh', 'true', '```')).toEqual([
      'line 1: a file directive on an sh block: it is for content (yaml, json, …), an sh block runs',
    ]);
    expect(errors('<!-- doc-test: skip: why -->', '```text', 'a', '```')).toEqual([
      'line 1: a skip on a "text" block, which does not run anyway (only sh blocks run)',
    ]);
    expect(errors('```sh', 'true')).toEqual(['line 1: the fence opened here is never closed']);
  });

  it('ignores doc-test comments inside a block: a page may show the convention', () => {
    const page = parseDoc(md('````markdown', '<!-- doc-test: server -->', '```sh', 'npm start', '```', '````'));
    expect(page.errors).toEqual([]);
    expect(stepsOf(page)).toEqual([]);
  });

  it('keeps a file block’s name in the working directory', () => {
    expect(parseDirective(' file config/understudy.yaml ')).toEqual({ kind: 'file', name: 'config/understudy.yaml' });
    for (const name of ['/etc/understudy.yaml', '../outside.yaml', 'a/../../b']) {
      expect(parseDirective(`file ${name}`), name).toEqual({ error: `a file's name must stay in the working directory, not "${name}"` });
    }
    expect(parseDirective('file')).toEqual({ error: 'a file needs one name: <!-- doc-test: file NAME -->' });
    expect(parseDirective('file a b')).toEqual({ error: 'a file needs one name: <!-- doc-test: file NAME -->' });
  });

  it('rewrites the documented address to the sandbox’s port', () => {
    expect(withPort("curl localhost:4010/v1 'http://127.0.0.1:4010/x' http://localhost:40100 example.com:4010", 45_123)).toBe(
      "curl localhost:45123/v1 'http://127.0.0.1:45123/x' http://localhost:40100 example.com:4010",
    );
  });
});

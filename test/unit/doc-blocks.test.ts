import { describe, expect, it } from 'vitest';
import { backgroundPorts, parseDirective, parseDoc, stepsOf, withPort, withPortWord } from '../docs/doc-blocks.js';

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

  it('starts a background block on its port, which the block names', () => {
    const page = parseDoc(
      md(
        '<!-- doc-test: background 4000 -->',
        '```sh',
        'npm run receive -- --port 4000 --fail 1',
        '```',
        '```sh',
        'curl localhost:4000',
        '```',
      ),
    );
    expect(page.errors).toEqual([]);
    const steps = stepsOf(page);
    expect(steps).toEqual([
      { kind: 'background', line: 2, port: 4000, script: 'npm run receive -- --port 4000 --fail 1\n' },
      { kind: 'run', line: 5, script: 'curl localhost:4000\n' },
    ]);
    expect(backgroundPorts(steps)).toEqual([4000]);
  });

  it('rejects a background block without a port, on the sandbox’s, not naming it, twice on one, or not sh', () => {
    const errors = (...lines: string[]) => parseDoc(md(...lines)).errors;
    for (const port of ['', 'x', '0', '70000', '4000 4001']) {
      expect(errors(`<!-- doc-test: background ${port} -->`, '```sh', 'serve 4000', '```'), port).toEqual([
        'line 1: a background block needs its port: <!-- doc-test: background PORT -->',
      ]);
    }
    expect(errors('<!-- doc-test: background 4010 -->', '```sh', 'serve 4010', '```')).toEqual([
      "line 1: 4010 is the sandbox's own port: a background block serves on another",
    ]);
    expect(errors('<!-- doc-test: background 4000 -->', '```sh', 'serve --port 40001', '```')).toEqual([
      'line 1: the background block does not name its port 4000 (`--port 4000`): the harness could not move it to a free one',
    ]);
    expect(
      errors(
        '<!-- doc-test: background 4000 -->',
        '```sh',
        'serve 4000',
        '```',
        '<!-- doc-test: background 4000 -->',
        '```sh',
        'serve 4000',
        '```',
      ),
    ).toEqual(['line 5: a background block before this one serves on 4000']);
    expect(errors('<!-- doc-test: background 4000 -->', '```text', 'serve 4000', '```')).toEqual([
      'line 1: a background directive on a "text" block: only sh blocks run',
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
      'line 1: unknown directive "only" (skip: REASON, server, background PORT, file NAME)',
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
    expect(withPort('curl http://127.0.0.1:4000/hooks localhost:4010', 45_124, 4000)).toBe(
      'curl http://127.0.0.1:45124/hooks localhost:4010',
    );
  });

  it('rewrites a background block’s port wherever it stands as a word, and nowhere inside a longer number', () => {
    expect(withPortWord('serve --port 4000 --port=4000 .listen(4000) 40001 14000 4000.5 v4000', 45_125, 4000)).toBe(
      'serve --port 45125 --port=45125 .listen(45125) 40001 14000 4000.5 v4000',
    );
  });
});

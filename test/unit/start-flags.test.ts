import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * V8 takes the bundle's code cache only under the flags it was made with, and the build makes it
 * under the bin's shebang's: every other way of starting the CLI must pass the same ones.
 */
describe('the V8 flags every start of the CLI passes', () => {
  const shebang = /^#!\/usr\/bin\/env -S node((?: --[\w-]+=\S+)+)$/.exec(readFileSync('src/cli/bin.cts', 'utf8').split('\n', 1)[0] ?? '');
  const flags = (shebang?.[1] ?? '').trim().split(' ');

  it('are the bin’s shebang’s', () => {
    expect(flags).toContain('--max-semi-space-size=4');
  });

  it('are npm start’s', () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(start).toBe(`node ${flags.join(' ')} scripts/start.mjs`);
  });

  it('are npm run receive’s (the CLI’s webhook receiver, through the same start)', () => {
    const receive = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { receive: string } }).scripts.receive;
    expect(receive).toBe(`node ${flags.join(' ')} scripts/start.mjs receive`);
  });

  it('are the Docker image’s', () => {
    expect(readFileSync('Dockerfile', 'utf8')).toContain(
      `CMD ${JSON.stringify(['node', ...flags, 'dist/cli/bin.cjs']).replaceAll(',', ', ')}`,
    );
  });

  it('are compose.yaml’s, which runs the bin too', () => {
    const quoted = ['node', ...flags, 'dist/cli/bin.cjs'].map((part) => `'${part}'`).join(', ');
    expect(readFileSync('compose.yaml', 'utf8').replace(/\s+/g, ' ')).toContain(`command: [${quoted}, '--config'`);
  });
});

import { describe, expect, it } from 'vitest';
// @ts-expect-error: the build scripts are plain JavaScript, outside the TypeScript project
import { withoutSandboxSettings } from '../../scripts/bundle.mjs';

/** The build's warm-up start (which makes the code cache) serves the Pet Store with its defaults, whatever the build's environment says. */
describe('the environment of the build’s warm-up start', () => {
  it('keeps none of the CLI’s own settings, and everything else', () => {
    const env = {
      SANDBOX_DATA: '/home/me/pets.json',
      SANDBOX_SPEC: 'mine.yaml',
      SANDBOX_REDIS_URL: 'redis://x',
      PORT: '80',
      HOST: '0.0.0.0',
      PATH: '/usr/bin',
      NODE_OPTIONS: '--max-old-space-size=512',
    };
    expect(withoutSandboxSettings(env)).toEqual({ PATH: '/usr/bin', NODE_OPTIONS: '--max-old-space-size=512' });
  });
});

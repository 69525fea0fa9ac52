import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { cacheDirFrom, loadConfig } from '../../src/config/load-config.js';

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'understudy-config-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'sandbox.yaml');
  await writeFile(path, text);
  return path;
}

describe('loadConfig', () => {
  it('gives the defaults with no file, env or flags, frozen', async () => {
    const config = await loadConfig({}, {});
    expect(config).toEqual({ ...DEFAULT_CONFIG, cacheDir: cacheDirFrom(process.cwd()) });
    expect(Object.isFrozen(config.plans.free)).toBe(true);
  });

  it('reads a partial file: what it leaves out keeps its default', async () => {
    const path = await configFile(
      'plans:\n  enterprise: { perMinute: 5000, perDay: 1000000 }\n  free: { perMinute: 10, perDay: 100 }\nkeys:\n  - { key: my-key, plan: enterprise }\n',
    );
    const config = await loadConfig({ config: path }, {});
    expect(config.plans.free).toEqual({ perMinute: 10, perDay: 100 });
    expect(config.plans.pro).toEqual(DEFAULT_CONFIG.plans.pro);
    expect(config.keys).toEqual([{ key: 'my-key', plan: 'enterprise' }]);
    expect(config.port).toBe(4010);
  });

  it('layers defaults < file < env < flags', async () => {
    const path = await configFile('port: 5000\nseed: 7\nhost: 0.0.0.0\n');
    const config = await loadConfig({ config: path, port: '6000' }, { PORT: '5500', SANDBOX_SEED: '9' });
    expect(config.port).toBe(6000);
    expect(config.seed).toBe(9);
    expect(config.host).toBe('0.0.0.0');
  });

  it('finds the config file from SANDBOX_CONFIG', async () => {
    const path = await configFile('seed: 3\n');
    expect((await loadConfig({}, { SANDBOX_CONFIG: path })).seed).toBe(3);
  });

  it.each([
    ['plans:\n  free: { perMinute: "lots", perDay: 1 }\n', 'plans.free.perMinute'],
    ['keys:\n  - { key: k1, plan: platinum }\n', 'keys.0.plan'],
    ['port: 70000\n', 'port'],
    ['bodyLimit: 0\n', 'bodyLimit'],
    ['colour: blue\n', 'colour'],
    ['validation: { unknownQueryParameters: maybe }\n', 'validation.unknownQueryParameters'],
    ['- just\n- a list\n', 'YAML mapping'],
    ['faults: { allowClientChoice: maybe }\n', 'faults.allowClientChoice'],
    ['faults: { timeoutCapMs: 0 }\n', 'faults.timeoutCapMs'],
    ['faults: { chaos: true }\n', 'faults must NOT have additional properties (chaos)'],
    ['faults: { latency: { uniform: [500, 100] } }\n', 'faults.latency.uniform.1'],
    ['faults: { latency: { lognormal: { median: 200, sigma: 0.5 } } }\n', 'faults.latency.lognormal.cap'],
    ['faults: { latency: 250 }\n', 'faults.latency'],
    ['faults: { faults: [{ fault: explode }] }\n', 'faults.faults.0.fault'],
    ['faults: { faults: [{ status: 503, probability: 0.1 }, { fault: dribble, chunks: 0 }] }\n', 'faults.faults.1.chunks'],
    ['faults: { faults: [{ status: 503 }, { fault: timeout }] }\n', 'faults.faults.1 can never be chosen'],
  ])('stops on a bad file, naming the field (%#)', async (text, field) => {
    await expect(loadConfig({ config: await configFile(text) }, {})).rejects.toThrow(field);
  });

  it('takes the log format from the file, SANDBOX_LOG_FORMAT and --log-format, in that order, and refuses another', async () => {
    const file = await configFile('log: { format: pretty }\n');
    expect((await loadConfig({ config: file }, {})).log).toEqual({ level: 'info', format: 'pretty' });
    expect((await loadConfig({ config: file }, { SANDBOX_LOG_FORMAT: 'json' })).log.format).toBe('json');
    expect((await loadConfig({ config: file, logFormat: 'pretty' }, { SANDBOX_LOG_FORMAT: 'json' })).log.format).toBe('pretty');
    await expect(loadConfig({ logFormat: 'colour' }, {})).rejects.toThrow('log.format must be equal to one of the allowed values');
  });

  it('stops on a bad number in the environment or flags, naming it', async () => {
    await expect(loadConfig({}, { PORT: 'eighty' })).rejects.toThrow('PORT');
    await expect(loadConfig({ seed: '1.5' }, {})).rejects.toThrow('--seed');
  });

  it('drops the Pet Store fixtures when another document is served', async () => {
    const config = await loadConfig({ spec: 'other.yaml' }, {});
    expect(config.fixtures).toBeNull();
    expect(config.spec).toMatch(/other\.yaml$/);
  });
});

describe('cacheDir', () => {
  it('is node_modules/.cache/understudy beside the nearest node_modules up from the working directory, or none', async () => {
    expect((await loadConfig({}, {})).cacheDir).toBe(join(process.cwd(), 'node_modules/.cache/understudy'));
    expect(cacheDirFrom(join(process.cwd(), 'src/config'))).toBe(join(process.cwd(), 'node_modules/.cache/understudy'));
    const bare = await mkdtemp(join(tmpdir(), 'understudy-no-modules-'));
    onTestFinished(() => rm(bare, { recursive: true, force: true }));
    await mkdir(join(bare, 'project/node_modules'), { recursive: true });
    await mkdir(join(bare, 'project/api/v2'), { recursive: true });
    expect(cacheDirFrom(join(bare, 'project/api/v2'))).toBe(join(bare, 'project/node_modules/.cache/understudy'));
    // Outside the project: what the temporary directory's own ancestors give (none, on most machines).
    expect(cacheDirFrom(bare)).toBe(cacheDirFrom(tmpdir()));
  });

  it('is read relative to the config file, from SANDBOX_CACHE_DIR relative to the working directory, and off with null', async () => {
    const path = await configFile('cacheDir: parsed\n');
    expect((await loadConfig({ config: path }, {})).cacheDir).toBe(join(path, '../parsed'));
    expect((await loadConfig({ config: path }, { SANDBOX_CACHE_DIR: 'elsewhere' })).cacheDir).toBe(join(process.cwd(), 'elsewhere'));
    expect((await loadConfig({ config: await configFile('cacheDir: null\n') }, {})).cacheDir).toBeNull();
  });
});

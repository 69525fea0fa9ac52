import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { load as parseYaml } from 'js-yaml';
import { parseFaultList } from '../faults/fault-spec.js';
import { parseLatency } from '../faults/latency.js';
import type { SandboxConfig } from './config.js';
import { CONFIG_AJV_OPTIONS, CONFIG_SCHEMA } from './config-schema.js';
import { configPlaces, lineColumn } from './config-places.js';
import { DEFAULT_CONFIG } from './defaults.js';

/** Command-line values, already named as config fields. */
export interface ConfigFlags {
  readonly config?: string | undefined;
  readonly spec?: string | undefined;
  readonly fixtures?: string | undefined;
  readonly data?: string | undefined;
  readonly snapshot?: string | undefined;
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  readonly seed?: string | undefined;
  readonly adminToken?: string | undefined;
  readonly logFormat?: string | undefined;
  readonly redis?: string | undefined;
}

type Tree = Record<string, unknown>;
const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Objects merge key by key; lists and values replace. Neither input is changed. */
function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    out[key] = isTree(value) && isTree(base[key]) ? merge(base[key], value) : value;
  }
  return out;
}

/** An empty environment variable counts as unset. */
const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new Error(`${name} must be a whole number, not "${value}"`);
  return Number(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A config file read: its fields, and its text (to say where a refused field is written). */
interface ConfigFile {
  readonly path: string;
  readonly tree: Tree;
  readonly text: string;
}

async function readConfigFile(path: string): Promise<ConfigFile> {
  let raw: unknown;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
    raw = parseYaml(text);
  } catch (error) {
    throw new Error(`cannot read the config file ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (raw === null || raw === undefined) return { path, tree: {}, text };
  if (!isTree(raw)) throw new Error(`the config file ${path} must be a YAML mapping`);
  const base = dirname(path);
  // Paths in a config file are relative to the file, not to the working directory.
  for (const field of ['spec', 'fixtures', 'data', 'snapshot', 'cacheDir'] as const) {
    if (typeof raw[field] === 'string') raw[field] = resolve(base, raw[field]);
  }
  return { path, tree: raw, text };
}

/** One thing wrong with a config: the field (a dotted path), what is wrong, and whether the field is one not known. */
export interface ConfigProblem {
  readonly field: string;
  readonly text: string;
  readonly unknown?: boolean;
}

/** A config refused: every problem found, each naming its field. */
export class InvalidConfig extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(`invalid configuration: ${problems.map((p) => p.text).join('; ')}`);
  }
}

/**
 * The problems with `file:line:column` before each whose field is written in the config file (or
 * whose nearest enclosing field is), unless the environment or a flag set it.
 */
function placed(error: InvalidConfig, file: ConfigFile, over: readonly Tree[]): InvalidConfig {
  const places = configPlaces(file.text);
  return new InvalidConfig(
    error.problems.map((problem) => {
      if (over.some((tree) => tree[problem.field.split('.')[0] ?? ''] !== undefined)) return problem;
      for (let field = problem.field; field !== ''; field = field.slice(0, Math.max(0, field.lastIndexOf('.')))) {
        const place = places.get(field);
        if (place === undefined) continue;
        const at = problem.unknown && field === problem.field ? (place.key ?? place.value) : place.value;
        return { ...problem, text: `${file.path}:${lineColumn(file.text, at)}: ${problem.text}` };
      }
      return problem;
    }),
  );
}

/**
 * Builds the configuration: defaults < config file < environment < flags. The only place that
 * reads the environment (it is passed in). The result is validated, checked for consistency and
 * frozen; a bad field stops the start with its name.
 */
export async function loadConfig(flags: ConfigFlags, env: Readonly<Record<string, string | undefined>>): Promise<SandboxConfig> {
  const file = flags.config ?? env.SANDBOX_CONFIG;
  const read = file ? await readConfigFile(resolve(file)) : undefined;
  const fromFile = read?.tree ?? {};
  const fromEnv: Tree = {
    spec: env.SANDBOX_SPEC === undefined ? undefined : resolve(env.SANDBOX_SPEC),
    data: env.SANDBOX_DATA && resolve(env.SANDBOX_DATA),
    snapshot: env.SANDBOX_SNAPSHOT && resolve(env.SANDBOX_SNAPSHOT),
    port: integer(env.PORT, 'PORT'),
    host: nonEmpty(env.HOST),
    seed: integer(env.SANDBOX_SEED, 'SANDBOX_SEED'),
    adminToken: nonEmpty(env.SANDBOX_ADMIN_TOKEN),
    log: nonEmpty(env.SANDBOX_LOG_FORMAT) && { format: env.SANDBOX_LOG_FORMAT },
    cacheDir: env.SANDBOX_CACHE_DIR && resolve(env.SANDBOX_CACHE_DIR),
    redis: nonEmpty(env.SANDBOX_REDIS_URL) && { url: env.SANDBOX_REDIS_URL },
  };
  const fromFlags: Tree = {
    spec: flags.spec && resolve(flags.spec),
    fixtures: flags.fixtures && resolve(flags.fixtures),
    data: flags.data && resolve(flags.data),
    snapshot: flags.snapshot && resolve(flags.snapshot),
    port: integer(flags.port, '--port'),
    host: flags.host,
    seed: integer(flags.seed, '--seed'),
    adminToken: flags.adminToken,
    log: flags.logFormat ? { format: flags.logFormat } : undefined,
    redis: flags.redis && { url: flags.redis },
  };
  // A document other than the default has no use for the Pet Store's fixtures.
  const specChanged = [fromFile.spec, fromEnv.spec, fromFlags.spec].some((s) => s !== undefined);
  const defaults: Tree = { ...DEFAULT_CONFIG, cacheDir: cacheDirFrom(process.cwd()), ...(specChanged && { fixtures: null }) };
  const merged = merge(merge(merge(defaults, fromFile), fromEnv), fromFlags);
  try {
    return deepFreeze(checkConfig(merged, await configValidator()));
  } catch (error) {
    if (read === undefined || !(error instanceof InvalidConfig)) throw error;
    throw placed(error, read, [fromEnv, fromFlags]);
  }
}

/**
 * Where parsed YAML and compiled validators are kept unless the config says otherwise:
 * `node_modules/.cache/understudy` in the nearest directory up from `dir` that has a `node_modules`
 * (the place JavaScript tools keep their caches: Babel, ESLint, webpack), or none.
 */
export function cacheDirFrom(dir: string): string | null {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules'))) return join(at, 'node_modules', '.cache', 'understudy');
    if (dirname(at) === at) return null;
  }
}

/** The config schema compiled now (Ajv's first compile in a process: about 80 ms). */
function compiledValidator(): ValidateFunction {
  const ajv = new Ajv(CONFIG_AJV_OPTIONS);
  addFormats.default(ajv);
  return ajv.compile(CONFIG_SCHEMA);
}

/** Where the build writes the validator as code (`scripts/config-validator.mjs`); a source checkout has none. */
const GENERATED = './config-validator.js';
let validator: Promise<ValidateFunction> | undefined;

/**
 * The config's validator: the one the build wrote as code (same schema, same options), loaded, or,
 * running from the sources, compiled. The build writes it after compiling; a start never uses one
 * older than the schema (`npm start` builds both when a source changed).
 */
function configValidator(): Promise<ValidateFunction> {
  return (validator ??= import(GENERATED).then(
    (module: { default: ValidateFunction }) => module.default,
    () => compiledValidator(),
  ));
}

/** Validates a merged configuration tree and checks that its parts agree. */
export function checkConfig(tree: Tree, validate: ValidateFunction = compiledValidator()): SandboxConfig {
  if (!validate(tree)) {
    const problems = (validate.errors ?? []).map((e): ConfigProblem => {
      const path = e.instancePath.slice(1).replace(/\//g, '.');
      const field = path || '(top level)';
      if (e.keyword !== 'additionalProperties') return { field: path, text: `${field} ${e.message ?? 'is invalid'}` };
      const name = String(e.params.additionalProperty);
      return { field: path ? `${path}.${name}` : name, text: `${field} ${e.message ?? 'is invalid'} (${name})`, unknown: true };
    });
    throw new InvalidConfig(problems);
  }
  const config = tree as unknown as SandboxConfig;
  for (const [index, { plan }] of config.keys.entries()) {
    if (!Object.hasOwn(config.plans, plan))
      throw invalid(`keys.${index}.plan`, `"${plan}" is not one of the plans (${Object.keys(config.plans).join(', ')})`);
  }
  if (!Object.hasOwn(config.plans, config.anonymousPlan))
    throw invalid('anonymousPlan', `"${config.anonymousPlan}" is not one of the plans`);
  const { visitorPlan } = config.pages;
  if (visitorPlan !== null && !Object.hasOwn(config.plans, visitorPlan))
    throw invalid('pages.visitorPlan', `"${visitorPlan}" is not one of the plans`);
  const seen = new Set<string>();
  for (const [index, { key }] of config.keys.entries()) {
    if (seen.has(key)) throw invalid(`keys.${index}.key`, 'is listed twice');
    seen.add(key);
  }
  // A name says which key is meant wherever the admin API takes one.
  const names = new Set<string>();
  for (const [index, { name }] of config.keys.entries()) {
    if (name === undefined) continue;
    if (names.has(name)) throw invalid(`keys.${index}.name`, 'is listed twice');
    names.add(name);
  }
  // A basic user-id names one key: two keys with the same username would make the password decide
  // which plan a request is counted against.
  const users = new Set<string>();
  for (const [index, { username }] of config.keys.entries()) {
    if (username === undefined) continue;
    if (users.has(username)) throw invalid(`keys.${index}.username`, 'is listed twice');
    users.add(username);
  }
  return withFaults(config);
}

/** One problem with a field, said after its name. */
const invalid = (field: string, what: string): InvalidConfig => new InvalidConfig([{ field, text: `${field} ${what}` }]);

/** The faults section read by src/faults (shapes, ranges, defaults filled in: a dribble's chunks). */
function withFaults(config: SandboxConfig): SandboxConfig {
  const { latency, faults } = config.faults;
  const model = latency === null ? undefined : parseLatency(latency, 'faults.latency');
  if (model && !model.ok) throw new InvalidConfig([{ field: 'faults.latency', text: model.error }]);
  const list = parseFaultList(faults, 'faults.faults');
  if (!list.ok) throw new InvalidConfig([{ field: 'faults.faults', text: list.error }]);
  return { ...config, faults: { ...config.faults, latency: model ? model.value : null, faults: list.value } };
}

import { resolve } from 'node:path';
import type { SandboxConfig } from '../config/config.js';
import { present } from '../dispatch/records.js';
import { buildGeneration, EAGER_OPERATIONS, type Generation } from '../generation/generation.js';
import { keepValidators } from '../schemas/document-schemas.js';
import { exampleWarnings } from '../mock/example-check.js';
import { buildApiModel } from '../openapi/build-model.js';
import { buildIdentity, documentDigest } from '../openapi/cache-files.js';
import { readDocument } from '../openapi/load-document.js';
import { loadFixtures, NO_FIXTURES, type FixtureDefinitions } from '../seeding/fixtures.js';
import { KeptSeed } from '../seeding/kept-seed.js';
import { Seeder } from '../seeding/seeder.js';
import { loadXmlFor } from '../validation/xml-library.js';
import type { Row } from '../vocabulary/record.js';
import type { ApiModel } from '../vocabulary/operation.js';
import type { StartupProgress } from './startup-progress.js';

/** Everything read from the files a sandbox serves: the document's model and generation, the fixtures. */
export interface Served {
  readonly model: ApiModel;
  readonly fixtures: FixtureDefinitions;
  readonly generation: Generation;
  /** Seeds the store from this document, fixtures and seed. */
  readonly seeder: Seeder;
  /** Where the seeder keeps what it seeds between starts (with a cache directory, in the bundled CLI), to `save`. */
  readonly keptSeed: KeptSeed | undefined;
  /** Every file read (the document, each file its `$ref`s reached, the fixtures), absolute: what a watcher watches. */
  readonly files: readonly string[];
}

/**
 * Reads and compiles what the config points at: the document (bundled, converted), its examples
 * checked, the fixtures, every route and validator. At start, and again, aside, on every reload.
 * Anything that does not load throws, naming the file and the place.
 */
export async function loadServed(config: SandboxConfig, number: number, onProgress?: (event: StartupProgress) => void): Promise<Served> {
  const loaded = await readDocument(config.spec, { onProgress, cacheDir: config.cacheDir });
  const built = buildApiModel(loaded.document, loaded.locate);
  // Validators are kept between starts like parsed YAML; a large document compiles on first use
  // (below), where the digest of its whole text is not worth it.
  if (config.cacheDir !== null && built.operations.length <= EAGER_OPERATIONS) keepValidators(built.document, config.cacheDir);
  await loadXmlFor(built);
  // Examples that break their own schemas are reported at start and set aside (unless the config
  // serves them). A large document's examples are checked when first served instead: compiling
  // every example's schema costs seconds on GitHub's description (measured), and an invalid one
  // is never served either way (mock/mock-answer.ts checks before serving).
  const checkExamples = !config.validation.serveInvalidExamples && built.operations.length <= EAGER_OPERATIONS;
  const model = checkExamples ? { ...built, warnings: [...built.warnings, ...exampleWarnings(built)] } : built;
  for (const message of model.warnings) onProgress?.({ phase: 'warning', message });
  const fixtures = config.fixtures ? await loadFixtures(config.fixtures, config.cacheDir) : NO_FIXTURES;
  const generation = buildGeneration(
    model,
    number,
    {
      basePath: config.basePath,
      seed: config.seed,
      referenceDate: fixtures.referenceDate,
      validation: config.validation,
      serveInvalidExamples: config.validation.serveInvalidExamples,
    },
    onProgress,
  );
  for (const message of generation.warnings) onProgress?.({ phase: 'warning', message });
  const files = config.fixtures ? [...loaded.files, resolve(config.fixtures)] : loaded.files;
  // Only where the code has a digest to name entries by (the bundle's) and the document's digest is
  // cheap next to its start (the validators' rule, above).
  const build = buildIdentity();
  const keptSeed =
    config.cacheDir !== null && build !== undefined && built.operations.length <= EAGER_OPERATIONS
      ? new KeptSeed(config.cacheDir, { build, document: documentDigest(model.document), seed: config.seed, fixtures })
      : undefined;
  return { model, fixtures, generation, seeder: new Seeder(model, fixtures, config.seed, keptSeed), keptSeed, files };
}

/** Stored records a document no longer describes, per collection (after a reload: they are kept as they are). */
export interface InvalidRecords {
  readonly collection: string;
  readonly count: number;
}

/**
 * Counts the stored records that break their collection's record schema in a generation: what a
 * reload that changed a schema reports (records are never rewritten).
 */
export function invalidRecords(
  generation: Generation,
  written: Iterable<{ readonly collection: string; readonly rows: readonly Row[] }>,
): InvalidRecords[] {
  // One record schema per collection: the first stateful operation that names one.
  const schemas = new Map<string, { readonly pointer: string; readonly idProperty: string }>();
  for (const { binding } of generation.operations) {
    const resource = binding.operation.binding.resource;
    if (resource === undefined || binding.recordPointer === undefined || schemas.has(resource)) continue;
    schemas.set(resource, { pointer: binding.recordPointer, idProperty: binding.idProperty });
  }
  // Checked as answers show them, with the generation's own compiler.
  const compiler = generation.schemas.compiler('response');
  const counts = new Map<string, number>();
  for (const { collection, rows } of written) {
    const schema = schemas.get(collection);
    if (!schema) continue;
    const valid = compiler.compile(schema.pointer);
    let broken = 0;
    for (const row of rows) if (!valid(present(row, schema.idProperty))) broken++;
    if (broken > 0) counts.set(collection, (counts.get(collection) ?? 0) + broken);
  }
  return [...counts].map(([collection, count]) => ({ collection, count }));
}

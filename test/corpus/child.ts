import { writeFileSync } from 'node:fs';
import { CORPUS } from './manifest.js';
import { runDocument } from './run-document.js';

/**
 * One document in a process of its own (spawned by run.ts), so that its start time and peak RSS
 * are its own: `node child.js <id> <file> <result.json>`.
 */
const [id, file, out] = process.argv.slice(2);
const entry = CORPUS.find((doc) => doc.id === id);
if (entry === undefined || file === undefined || out === undefined) {
  console.error('usage: child.js <id> <file> <result.json>');
  process.exit(2);
}
const result = await runDocument(entry, file);
writeFileSync(out, JSON.stringify(result));
process.exit(0);

import { parseArgs } from 'node:util';
import { buildApiModel } from '../openapi/build-model.js';
import { readDocument } from '../openapi/load-document.js';
import { stateModel, type StateModel } from '../resources/model.js';

/** `understudy explain`: what a document's sandbox will remember, and what it answers from the document, with no server started. */

export const EXPLAIN_HELP = `Usage: understudy explain [--spec FILE] [--json]

Says what the sandbox makes of a document, without starting it: each collection it keeps records
in (its paths, id property, id kind and how new ids are minted, filters, paging), each operation
answered from the document and why, and the operations that answer 404 for a record that does not
exist although the document declares no 404.

  --spec FILE   the OpenAPI 3.0/3.1/3.2 or Swagger 2.0 document (default openapi/petstore.yaml)
  --json        the same as JSON (as GET /__sandbox/model answers it)
`;

export async function explain(args: readonly string[], out: (text: string) => void, defaultSpec: string): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { spec: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    out(EXPLAIN_HELP);
    return 0;
  }
  const loaded = await readDocument(values.spec ?? defaultSpec);
  const model = buildApiModel(loaded.document, loaded.locate);
  const state = stateModel(model);
  out(values.json ? `${JSON.stringify(state, null, 2)}\n` : explainText(model.title, state));
  return 0;
}

/** The state model as people read it: a block per collection, then what the document answers. */
export function explainText(title: string, state: StateModel): string {
  const lines: string[] = [`${title}: ${count(state.collections.length, 'collection')} keep records`, ''];
  for (const c of state.collections) {
    const scope = c.scope.length > 0 ? ` (under ${c.scope.map((p) => `{${p}}`).join(', ')})` : '';
    lines.push(`${c.name}${scope}${c.explicit ? ' [x-understudy]' : ''}`);
    lines.push(`  id        ${c.idProperty}: ${c.ids}`);
    for (const v of c.views) {
      const parents = Object.entries(v.parentFields ?? {}).map(([param, field]) => `${field} = {${param}}`);
      lines.push(
        `  ${v.action.padEnd(9)} ${v.method} ${v.path}  (${v.operationId})${parents.length > 0 ? `, where ${parents.join(', ')}` : ''}`,
      );
    }
    if (c.filters.length > 0) lines.push(`  filters   ${c.filters.join(', ')}`);
    lines.push(`  paging    ${c.paging}`, '');
  }
  if (state.fromDocument.length === 0) lines.push('Every operation is served from the store.');
  else lines.push(`${count(state.fromDocument.length, 'operation')} answered from the document:`);
  for (const o of state.fromDocument) lines.push(`  ${o.method} ${o.path}  (${o.operationId}): ${o.reason}`);
  if (state.undeclaredNotFound.length > 0) {
    lines.push('', `${count(state.undeclaredNotFound.length, 'operation')} answer 404 for a missing record with no 404 declared:`);
    lines.push(`  ${state.undeclaredNotFound.join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** One line for the start-up report: how many collections remember, and how many operations do not. */
export function stateSummary(state: StateModel): string {
  const names = state.collections.map((c) => c.name);
  const shown = names.length > 6 ? `${names.slice(0, 6).join(', ')}, …` : names.join(', ');
  const parts = [
    `${count(names.length, 'collection')} keep records${names.length > 0 ? ` (${shown})` : ''}`,
    `${count(state.fromDocument.length, 'operation')} answered from the document`,
  ];
  if (state.undeclaredNotFound.length > 0)
    parts.push(`${count(state.undeclaredNotFound.length, 'operation')} may answer an undeclared 404`);
  return `understudy: state: ${parts.join('; ')} (understudy explain says which and why)\n`;
}

const count = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Where a document fails to parse, as `file:line:column: reason` and the lines around it. */

interface YamlMark {
  readonly line: number;
  readonly column: number;
  readonly snippet?: string | null;
}

/** js-yaml's error, located by its mark (lines and columns count from 0 there, from 1 here). */
export function locateYamlError(file: string, error: unknown): string {
  const e = error as { reason?: unknown; mark?: YamlMark; message?: unknown };
  if (!e.mark || typeof e.reason !== 'string') return `${file}: not valid YAML: ${String(e.message)}`;
  const snippet = e.mark.snippet ? `\n${e.mark.snippet}` : '';
  return `${file}:${e.mark.line + 1}:${e.mark.column + 1}: not valid YAML: ${e.reason}${snippet}`;
}

/**
 * `JSON.parse`'s error, located. V8 names a character position in some messages (`... in JSON at
 * position 13`) and in others quotes the text around the fault instead (`Unexpected token '}',
 * ..." "paths": }, "ccc"... is not valid JSON`: ten characters either side, dots where it cut), so
 * the position is found where that excerpt stands in the text. This runs only on a broken document.
 */
export function locateJsonError(file: string, text: string, error: unknown): string {
  const message = (error as Error).message;
  const position = positionOf(text, message);
  if (position === undefined) return `${file}: not valid JSON: ${withoutQuote(message)}`;
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${file}:${line}:${column}: not valid JSON: ${withoutQuote(message).replace(/ in JSON at position \d+.*$/s, '')}`;
}

function positionOf(text: string, message: string): number | undefined {
  const at = /at position (\d+)/.exec(message);
  if (at?.[1] !== undefined) return Number(at[1]);
  const quoted = /^Unexpected token '(.+?)', (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(message);
  if (!quoted?.[1] || quoted[3] === undefined) return undefined;
  const start = text.indexOf(quoted[3]);
  if (start < 0) return undefined;
  return start + (quoted[2] ? 10 : Math.max(0, quoted[3].indexOf(quoted[1])));
}

/** V8 quotes the text around the fault (`..., "{"a":1, "b":}" is not valid JSON`): the line says more. */
const withoutQuote = (message: string): string => message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, '');

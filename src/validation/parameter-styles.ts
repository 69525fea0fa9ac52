import type { ParameterSpec, ParameterStyle } from '../vocabulary/operation.js';

/**
 * The "Style Examples" table of OpenAPI 3.1 §4.8.12.4 read backwards: one parameter's text split
 * into the pieces its style put together (RFC 6570 §3.2 for simple, label and matrix). The pieces
 * are still text; parse-parameter.ts turns them into typed values.
 *
 *   style           primitive     array (explode=false / true)        object (explode=false / true)
 *   simple          blue          blue,black / blue,black             R,100,G,200 / R=100,G=200
 *   label           .blue         .blue,black / .blue.black           .R,100,G,200 / .R=100.G=200
 *   matrix          ;color=blue   ;color=blue,black /                 ;color=R,100,G,200 /
 *                                 ;color=blue;color=black             ;R=100;G=200
 *   form            blue          blue,black / (repeated keys)        R,100,G,200 / (a key each)
 *   spaceDelimited  —             blue black / (repeated keys)        R 100 G 200 / —
 *   pipeDelimited   —             blue|black / (repeated keys)        R|100|G|200 / —
 *   deepObject      —             —                                   — / color[R]=100&color[G]=200
 *
 * Exploded query and cookie values arrive as several keys: parameter-sources.ts gathers them.
 */

export type Pieces =
  | { readonly ok: true; readonly shape: 'scalar'; readonly text: string }
  | { readonly ok: true; readonly shape: 'items'; readonly texts: readonly string[] }
  | { readonly ok: true; readonly shape: 'pairs'; readonly pairs: readonly (readonly [string, string])[] }
  | { readonly ok: false; readonly message: string };

interface Rule {
  /** What opens the value: nothing, `.` (label), or `;name` (matrix). */
  readonly lead: 'none' | 'dot' | 'semicolon';
  /** Between array items and object members when not exploded. */
  readonly separator: string;
  /** Between them when exploded. */
  readonly explodedSeparator: string;
}

const RULES: Readonly<Record<ParameterStyle, Rule>> = {
  simple: { lead: 'none', separator: ',', explodedSeparator: ',' },
  label: { lead: 'dot', separator: ',', explodedSeparator: '.' },
  matrix: { lead: 'semicolon', separator: ',', explodedSeparator: ';' },
  form: { lead: 'none', separator: ',', explodedSeparator: ',' },
  spaceDelimited: { lead: 'none', separator: ' ', explodedSeparator: ' ' },
  pipeDelimited: { lead: 'none', separator: '|', explodedSeparator: '|' },
  deepObject: { lead: 'none', separator: ',', explodedSeparator: ',' },
};

const fail = (message: string): Pieces => ({ ok: false, message });

/** Splits one text of a parameter by its style (the value of a query key, a path segment, a header). */
export function splitText(spec: ParameterSpec, text: string): Pieces {
  const rule = RULES[spec.style];
  const shape = spec.kind === 'array' ? 'items' : spec.kind === 'object' ? 'pairs' : 'scalar';
  const exploded = spec.explode && shape !== 'scalar';
  if (rule.lead === 'semicolon' && exploded) return matrixExploded(spec.name, text, shape === 'items');
  const body = strip(rule.lead, spec.name, text);
  if (body === undefined) return fail(rule.lead === 'dot' ? 'must start with "."' : `must start with ";${spec.name}"`);
  if (shape === 'scalar') return { ok: true, shape, text: body };
  // RFC 9110 §5.6.1: a header list may have blanks around its commas (and repeated header lines
  // arrive joined with ", ").
  const trim = spec.in === 'header' ? (s: string) => s.trim() : (s: string) => s;
  const parts = body === '' ? [] : body.split(exploded ? rule.explodedSeparator : rule.separator).map(trim);
  if (shape === 'items') return { ok: true, shape, texts: parts };
  return exploded ? keyValues(parts) : alternating(parts);
}

function strip(lead: Rule['lead'], name: string, text: string): string | undefined {
  if (lead === 'none') return text;
  if (lead === 'dot') return text.startsWith('.') ? text.slice(1) : undefined;
  // RFC 6570 §3.2.7: an empty value is `;name`, without the `=`.
  if (text === `;${name}`) return '';
  return text.startsWith(`;${name}=`) ? text.slice(name.length + 2) : undefined;
}

/** `;color=blue;color=black` (array) or `;R=100;G=200` (object). */
function matrixExploded(name: string, text: string, array: boolean): Pieces {
  if (!text.startsWith(';')) return fail('must start with ";"');
  const members = text.slice(1).split(';');
  if (!array) return keyValues(members);
  const texts: string[] = [];
  for (const member of members) {
    if (member === name) texts.push('');
    else if (member.startsWith(`${name}=`)) texts.push(member.slice(name.length + 1));
    else return fail(`member "${member}" must be ${name}=value`);
  }
  return { ok: true, shape: 'items', texts };
}

/** Exploded object members: `R=100`. */
function keyValues(parts: readonly string[]): Pieces {
  const pairs: (readonly [string, string])[] = [];
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) return fail(`member "${part}" must be name=value`);
    pairs.push([part.slice(0, eq), part.slice(eq + 1)]);
  }
  return { ok: true, shape: 'pairs', pairs };
}

/** Unexploded object members: names and values alternate (`R,100,G,200`). */
function alternating(parts: readonly string[]): Pieces {
  if (parts.length % 2 !== 0) return fail('must list names and values in pairs');
  const pairs: (readonly [string, string])[] = [];
  for (let i = 0; i < parts.length; i += 2) pairs.push([parts[i] ?? '', parts[i + 1] ?? '']);
  return { ok: true, shape: 'pairs', pairs };
}

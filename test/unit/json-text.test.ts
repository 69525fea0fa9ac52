import { describe, expect, it } from 'vitest';
import { jsonText, recordJson } from '../../src/vocabulary/json-text.js';

describe('JSON text made once per record', () => {
  // prettier-ignore
  const BODIES: readonly [string, unknown][] = [
    ['a record', { id: 1, name: 'Rex', tags: ['a', 'b'], owner: { id: 2 } }],
    ['a page of records', [{ id: 1, name: 'Rex' }, { id: 2, name: 'Fido', status: null }]],
    ['an empty page', []],
    ['a list of scalars', [1, 'two', true, null]],
    ['a list with what JSON has no form for', [undefined, () => 1, 3]],
    ['nested lists', [[1, 2], [{ id: 3 }]]],
    ['a string', 'text "quoted"\n'],
    ['a number', 42],
    ['null', null],
  ];

  it.each(BODIES)('%s is written exactly as JSON.stringify writes it', (_name, body) => {
    expect(jsonText(body)).toBe(JSON.stringify(body));
  });

  it('writes a page from its records’ texts, the same text as serialising it whole', () => {
    const records = [
      { id: 1, name: 'Rex' },
      { id: 2, name: 'Fido' },
    ];
    for (const record of records) expect(recordJson(record)).toBe(JSON.stringify(record));
    // The record's text is the one kept: the same string each time.
    expect(recordJson(records[0] as object)).toBe(recordJson(records[0] as object));
    const page = [records[1], { id: 3, name: 'never serialised before' }, records[0]];
    expect(jsonText(page)).toBe(JSON.stringify(page));
    expect(JSON.parse(jsonText(page))).toEqual(page);
  });
});

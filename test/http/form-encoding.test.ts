import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/form-encoding.yaml', import.meta.url).pathname;

interface Row {
  readonly name: string;
  readonly form: string;
  readonly status: number;
  /** Fields of the answer (the record created from the form), or a location the 400 names. */
  readonly echoed?: Readonly<Record<string, unknown>>;
  readonly location?: string;
  readonly message?: string;
}

/** Form fields read per their Encoding Object, nested keys to any depth (src/validation/form-members.ts). */
// prettier-ignore
const ROWS: readonly Row[] = [
  { name: 'deepObject metadata', form: 'metadata[plan]=pro&metadata[seats]=3', status: 201, echoed: { metadata: { plan: 'pro', seats: '3' } } },
  { name: 'an empty metadata (the other anyOf branch)', form: 'metadata=', status: 201, echoed: { metadata: '' } },
  { name: 'indexed arrays of objects, typed', form: 'items[0][price]=p_1&items[0][quantity]=2&items[1][price]=p_2', status: 201, echoed: { items: [{ price: 'p_1', quantity: 2 }, { price: 'p_2' }] } },
  { name: 'an array by []', form: 'expand[]=customer&expand[]=invoice', status: 201, echoed: { expand: ['customer', 'invoice'] } },
  { name: 'an array by indexes, in index order', form: 'expand[1]=b&expand[0]=a', status: 201, echoed: { expand: ['a', 'b'] } },
  { name: 'nested deeper', form: 'address[geo][lat]=48.85&address[city]=Paris', status: 201, echoed: { address: { geo: { lat: 48.85 }, city: 'Paris' } } },
  { name: 'a JSON-encoded field', form: 'preferences=%7B%22locale%22%3A%22fr%22%7D', status: 201, echoed: { preferences: { locale: 'fr' } } },
  { name: 'a pipe-delimited field', form: 'ids=1|2|3', status: 201, echoed: { ids: [1, 2, 3] } },
  { name: 'a oneOf field, integer branch', form: 'limit=5&balance=-3', status: 201, echoed: { limit: 5, balance: -3 } },
  { name: 'a oneOf field, string branch', form: 'limit=unlimited', status: 201, echoed: { limit: 'unlimited' } },
  { name: 'a oneOf field neither branch takes', form: 'limit=0', status: 400, location: 'body.limit' },
  { name: 'a member that is not its type', form: 'items[0][price]=p&items[0][quantity]=two', status: 400, location: 'body.items[0].quantity', message: 'must be an integer' },
  { name: 'a member the item requires', form: 'items[0][quantity]=2', status: 400, location: 'body.items[0].price', message: 'is required' },
  { name: 'a member the item does not declare', form: 'items[0][price]=p&items[0][colour]=red', status: 400, location: 'body.items[0].colour', message: 'is not allowed' },
  { name: 'a deep member not its type', form: 'address[geo][lat]=north', status: 400, location: 'body.address.geo.lat', message: 'must be a number' },
  { name: 'a value and members at once', form: 'metadata=x&metadata[plan]=pro', status: 400, location: 'body.metadata', message: 'is given both as a value and with members' },
  { name: 'a field the form does not declare', form: 'nickname[first]=Al', status: 400, location: 'body.nickname', message: 'is not allowed' },
];

describe.each(EDGES)('a form-encoded body through the $name', ({ make }) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null });
  });

  it.each(ROWS)('$name → $status', async (row) => {
    const res = await request(make(sandbox)).post('/v1/customers').type('form').send(row.form);
    expect(res.status).toBe(row.status);
    if (row.echoed) expect(res.body).toMatchObject(row.echoed);
    if (row.location) {
      expect(res.body).toMatchObject({ code: 'validation_failed', status: 400 });
      const violation = (res.body.details as { location: string; message: string }[]).find((d) => d.location === row.location);
      expect(violation).toMatchObject(row.message ? { message: row.message } : {});
    }
  });
});

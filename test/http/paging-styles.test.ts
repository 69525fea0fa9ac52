import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/paging-styles.yaml', import.meta.url).pathname;
/** Every collection of the document is seeded with this many records. */
const SEEDED = 10;

type App = ReturnType<(typeof EDGES)[number]['make']>;
type Page = { ids: unknown[]; next: string | undefined };

/**
 * Each paging style a document may declare, walked to its end the way a client of that API would:
 * every record once and only once, in the order the store keeps them (decision 0017).
 */
describe.each(EDGES)('paging styles through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: App;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null });
    app = make(sandbox);
  });

  /** Follows `next` from `first` until there is none, collecting each page's ids. */
  async function walk<B>(first: string, read: (body: B, link: string | undefined) => Page): Promise<unknown[][]> {
    const pages: unknown[][] = [];
    let url: string | undefined = first;
    while (url !== undefined && pages.length < 50) {
      const res = await request(app).get(url).set('X-Api-Key', 'demo-enterprise');
      expect(res.status).toBe(200);
      const page = read(res.body as B, res.headers.link as string | undefined);
      pages.push(page.ids);
      url = page.next;
    }
    return pages;
  }
  const linked = (link: string | undefined): string | undefined =>
    link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];

  it('offset + limit: Link rel="next" moves the offset', async () => {
    const pages = await walk('/notes?limit=6', (body: { id: string }[], link) => ({ ids: body.map((n) => n.id), next: linked(link) }));
    expect(pages.map((p) => p.length)).toEqual([6, 4]);
    expect(new Set(pages.flat()).size).toBe(SEEDED);
    const second = await request(app).get('/notes?limit=6').set('X-Api-Key', 'demo-enterprise');
    expect(second.headers.link).toBe('</notes?limit=6&offset=6>; rel="next"');
    const bad = await request(app).get('/notes?offset=-1').set('X-Api-Key', 'demo-enterprise');
    expect(bad.status).toBe(400);
  });

  it('page + per_page: numbered from 1, total_count from the store', async () => {
    const pages = await walk('/books', (body: { items: { id: number }[]; total_count: number }, link) => {
      expect(body.total_count).toBe(SEEDED);
      return { ids: body.items.map((b) => b.id), next: linked(link) };
    });
    expect(pages.map((p) => p.length)).toEqual([4, 4, 2]);
    expect(pages.flat()).toEqual(Array.from({ length: SEEDED }, (_, i) => i + 1));
    const third = await request(app).get('/books?page=3&per_page=4').set('X-Api-Key', 'demo-enterprise');
    expect(third.body.items.map((b: { id: number }) => b.id)).toEqual([9, 10]);
    expect((await request(app).get('/books?page=0').set('X-Api-Key', 'demo-enterprise')).status).toBe(400);
  });

  it('sort and q, where declared: a sorted, searched list pages over its own order', async () => {
    const all = (await request(app).get('/books?per_page=100').set('X-Api-Key', 'demo-enterprise')).body as { items: { title: string }[] };
    const titles = all.items.map((b) => b.title);
    const desc = await request(app).get('/books?per_page=100&sort=-title').set('X-Api-Key', 'demo-enterprise');
    expect(desc.body.items.map((b: { title: string }) => b.title)).toEqual([...titles].sort((a, b) => b.localeCompare(a)));
    const pages = await walk('/books?sort=title:asc&per_page=3', (body: { items: { title: string }[] }, link) => ({
      ids: body.items.map((b) => b.title),
      next: linked(link),
    }));
    expect(pages.flat()).toEqual([...titles].sort((a, b) => a.localeCompare(b)));
    const word = (titles[0] as string).split(/\s+/)[0] as string;
    const found = await request(app)
      .get(`/books?per_page=100&q=${encodeURIComponent(word.toUpperCase())}`)
      .set('X-Api-Key', 'demo-enterprise');
    expect(found.body.items.length).toBeGreaterThan(0);
    for (const b of found.body.items as { title: string }[]) expect(b.title.toLowerCase()).toContain(word.toLowerCase());
    expect(found.body.total_count).toBe(found.body.items.length);
  });

  it('starting_after a record id, with has_more (a Stripe-style list)', async () => {
    const pages = await walk('/cards', (body: { object: string; data: { id: string }[]; has_more: boolean }) => {
      expect(body.object).toBe('list');
      const last = body.data.at(-1)?.id;
      return { ids: body.data.map((c) => c.id), next: body.has_more && last ? `/cards?starting_after=${last}` : undefined };
    });
    expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
    expect(new Set(pages.flat()).size).toBe(SEEDED);
    for (const id of pages.flat()) expect(id).toMatch(/^card_/);
    const unknown = await request(app).get('/cards?starting_after=card_nope').set('X-Api-Key', 'demo-enterprise');
    expect(unknown.status).toBe(400);
  });

  it('an opaque page token in the envelope (nextPageToken), absent on the last page', async () => {
    const pages = await walk('/songs', (body: { songs: { id: string }[]; nextPageToken?: string }) => ({
      ids: body.songs.map((s) => s.id),
      next: body.nextPageToken === undefined ? undefined : `/songs?pageToken=${encodeURIComponent(body.nextPageToken)}`,
    }));
    expect(pages.map((p) => p.length)).toEqual([4, 4, 2]);
    expect(new Set(pages.flat()).size).toBe(SEEDED);
  });
});

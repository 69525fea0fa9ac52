import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, testSandbox } from '../support/sandbox.js';

/**
 * The journal stream (admin document, streamRequests) to a client that reconnects, over a real
 * socket: with `Last-Event-ID` (HTML Living Standard §9.2.4, what `EventSource` sends) it is first
 * sent the entries it missed, from the journal's ring, in order, then the live ones.
 */

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** An open stream: what it has received, and a wait for a text to arrive. */
interface Client {
  readonly received: () => string;
  readonly arrived: (text: string) => Promise<void>;
  readonly close: () => void;
}

describe('the journal stream to a reconnecting client', () => {
  let server: Server;
  let port: number;
  beforeEach(async () => {
    server = createServer(createNodeHandler(await testSandbox()) as (req: IncomingMessage, res: ServerResponse) => void);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const open = async (headers: Record<string, string> = {}): Promise<Client> => {
    const res = await new Promise<IncomingMessage>((resolve) =>
      get({ host: '127.0.0.1', port, path: '/__sandbox/requests/stream?key=demo-pro', headers: { ...admin, ...headers } }, resolve),
    );
    expect(res.statusCode).toBe(200);
    let received = '';
    const waiting = new Set<() => void>();
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      received += chunk;
      for (const check of waiting) check();
    });
    const arrived = (text: string): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!received.includes(text)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      });
    await arrived('retry: ');
    return { received: () => received, arrived, close: () => res.destroy() };
  };
  const send = async (limit: number): Promise<string> =>
    String((await request(server).get(`/v1/pets?limit=${limit}`).set(auth('demo-pro'))).headers['x-request-id']);
  const ids = (text: string): string[] => [...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1] as string);

  it('sends the entries missed after Last-Event-ID first, in order, then the live ones', async () => {
    const first = await open();
    const seen = await send(1);
    await first.arrived(`id: ${seen}`);
    first.close();
    const missed = [await send(2), await send(3)];
    const again = await open({ 'Last-Event-ID': seen });
    const live = await send(4);
    await again.arrived(`id: ${live}`);
    expect(ids(again.received())).toEqual([...missed, live]);
    expect(again.received()).toContain('"query":"limit=2"');
    again.close();
  });

  it('without Last-Event-ID, only the live entries', async () => {
    await send(1);
    const client = await open();
    const live = await send(2);
    await client.arrived(`id: ${live}`);
    expect(ids(client.received())).toEqual([live]);
    client.close();
  });

  it('every event carries an id, the request id', async () => {
    const client = await open();
    const live = await send(1);
    await client.arrived(`id: ${live}`);
    expect(client.received()).toMatch(new RegExp(`\\nid: ${live}\\ndata: \\{"id":"${live}"`));
    client.close();
  });
});

import { request as httpRequest, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { inFlight, startCli, until } from '../support/cli.js';

const IN_FLIGHT = 100;
const ADMIN = 'drain-admin-token';

/**
 * SIGTERM with 100 requests in flight: each has sent its headers and half its body when the signal
 * lands; the server stops accepting, every one of them still gets a whole answer, and it exits 0.
 */
describe('SIGTERM under load', () => {
  it(`answers all ${IN_FLIGHT} requests in flight in full, then exits 0`, async () => {
    const running = await startCli(['--config', new URL('../durability/unlimited.yaml', import.meta.url).pathname, '--admin-token', ADMIN]);
    const { port } = new URL(running.url);
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const started: Promise<void>[] = [];
    const draining = running.waitFor('draining');
    const answers = Array.from({ length: IN_FLIGHT }, (_, i) => {
      const head = `{"name":"drain-${i}",`;
      const tail = `"categoryId":${i + 1}}`;
      let sent!: () => void;
      started.push(new Promise((resolve) => (sent = resolve)));
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            agent,
            method: 'POST',
            path: '/v1/pets',
            headers: {
              Authorization: 'Bearer crash-key',
              'Content-Type': 'application/json',
              'Content-Length': String(Buffer.byteLength(head + tail)),
            },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.write(head, () => sent());
        void draining.then(() => req.end(tail));
      });
      return answer;
    });
    await Promise.all(started);
    // Every request has reached the sandbox (it is waiting for the rest of its body) before the signal.
    await until(async () => (await inFlight(running.url, ADMIN)) === IN_FLIGHT);
    running.child.kill('SIGTERM');
    const results = await Promise.all(answers);
    expect(results.map((r) => r.status)).toEqual(Array(IN_FLIGHT).fill(201));
    const names = results.map((r) => (JSON.parse(r.body) as { name: string }).name).sort();
    expect(names).toEqual(Array.from({ length: IN_FLIGHT }, (_, i) => `drain-${i}`).sort());
    expect(await running.exited).toBe(0);
    agent.destroy();
  });
});

import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.js';

const TRICKLERS = 300;
const NORMAL_REQUESTS = 200;
/** Generous on purpose: the point is "not starved", not a speed figure (that is `npm run bench`). */
const P99_BOUND_MS = 250;

function get(agent: Agent, port: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, agent, path: '/v1/pets?limit=5', headers: { Authorization: 'Bearer crash-key' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * A few hundred sockets trickle their headers a line at a time (slowloris) while a normal client
 * makes its requests: the server keeps answering it promptly, because a trickling socket costs a
 * parser and a timer, not a thread, and headersTimeout bounds how long it may hold them.
 */
describe('slow clients', () => {
  it(`keeps a normal client's p99 under ${P99_BOUND_MS} ms while ${TRICKLERS} sockets trickle headers`, async () => {
    const running = await startCli(['--config', new URL('../durability/unlimited.yaml', import.meta.url).pathname]);
    const port = Number(new URL(running.url).port);
    const sockets: Socket[] = [];
    await Promise.all(
      Array.from(
        { length: TRICKLERS },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.write('GET /v1/pets HTTP/1.1\r\nHost: sandbox\r\n');
              resolve();
            });
            socket.on('error', () => undefined);
            sockets.push(socket);
          }),
      ),
    );
    let line = 0;
    const trickle = setInterval(() => {
      line++;
      for (const socket of sockets) if (socket.writable) socket.write(`X-Slow-${line}: a\r\n`);
    }, 20);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const latencies: number[] = [];
    try {
      for (let i = 0; i < NORMAL_REQUESTS; i++) {
        const { status, ms } = await get(agent, port);
        expect(status).toBe(200);
        latencies.push(ms);
      }
    } finally {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      running.child.kill('SIGTERM');
      await running.exited;
    }
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1] ?? Infinity;
    expect(line).toBeGreaterThan(0);
    expect(p99).toBeLessThan(P99_BOUND_MS);
  });
});

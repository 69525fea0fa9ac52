import { Agent, request } from 'node:http';
import type { Answer } from './judge.js';
import type { WireRequest } from './requests.js';

/** Sends one request to the sandbox over loopback and collects the whole answer. */
export function send(port: number, agent: Agent, wire: WireRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...wire.headers };
    if (wire.body) headers['content-length'] = String(wire.body.length);
    const req = request({ host: '127.0.0.1', port, method: wire.method, path: wire.target, headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const type = res.headers['content-type'];
        resolve({ status: res.statusCode ?? 0, contentType: type, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    req.end(wire.body);
  });
}

/** The sandbox's Error shape, when the answer is one: `code: message (first detail)`. */
export function errorSummary(answer: Answer): { code: string; text: string } {
  try {
    const body = JSON.parse(answer.body.toString('utf8')) as {
      code?: unknown;
      message?: unknown;
      details?: { location?: unknown; message?: unknown }[];
    };
    const code = typeof body.code === 'string' ? body.code : `status ${answer.status}`;
    const first = Array.isArray(body.details) ? body.details[0] : undefined;
    const detail = first ? ` (${String(first.location)} ${String(first.message)})` : '';
    return { code, text: `${code}: ${String(body.message)}${detail}` };
  } catch {
    return { code: `status ${answer.status}`, text: answer.body.toString('utf8').slice(0, 200) };
  }
}

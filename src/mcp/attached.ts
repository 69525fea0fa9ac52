import { buildApiModel } from '../openapi/build-model.js';
import { isTextual } from './in-process.js';
import type { PlainAnswer, PlainRequest, SandboxTarget, ServedApi } from './target.js';

/** Headers of the connection, not of the answer: left out of what a tool shows. */
const HOP = new Set(['connection', 'keep-alive', 'date', 'transfer-encoding']);

/**
 * Tool calls as HTTP requests to a sandbox running elsewhere (`understudy mcp --attach URL`). The
 * API's operations come from its admin API (`GET /__sandbox/document`), read again when its
 * generation changes (a reload), so the tools follow the document it serves.
 */
export function attachedTarget(url: string, adminToken: string): SandboxTarget {
  const root = url.replace(/\/+$/, '');
  let known: { readonly generation: string; readonly api: ServedApi } | undefined;

  const send = async (request: PlainRequest): Promise<PlainAnswer> => {
    const target = `${root}${request.path}${request.query === '' ? '' : `?${request.query}`}`;
    let res: Response;
    try {
      res = await fetch(target, { method: request.method, headers: request.headers, body: request.body ?? null, redirect: 'manual' });
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
      return { status: 0, headers: {}, text: undefined, fault: `no answer from ${root}: ${cause}` };
    }
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (!HOP.has(name)) headers[name] = value;
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text =
      bytes.length === 0 && res.headers.get('content-type') === null
        ? { text: undefined }
        : isTextual(res.headers.get('content-type') ?? undefined)
          ? { text: bytes.toString('utf8') }
          : { text: bytes.toString('base64'), base64: true };
    return { status: res.status, headers, ...text };
  };

  /** An admin read; a refusal (a wrong token, the admin API off) is the error the tool listing fails with. */
  const read = async (path: string): Promise<{ readonly body: unknown; readonly generation: string }> => {
    const answer = await send({ method: 'GET', path: `/__sandbox${path}`, query: '', headers: { authorization: `Bearer ${adminToken}` } });
    if (answer.status !== 200 || answer.text === undefined) {
      throw new Error(`${root}/__sandbox${path} answered ${answer.status || answer.fault}: ${answer.text ?? ''}`);
    }
    return { body: JSON.parse(answer.text) as unknown, generation: answer.headers['x-sandbox-generation'] ?? '' };
  };

  return {
    adminToken,
    origin: root,
    send,
    async api() {
      const status = (await read('/status')).body as { readonly generation?: unknown };
      const generation = String(status.generation);
      if (known?.generation !== generation) {
        const document = await read('/document');
        const model = buildApiModel(document.body);
        known = { generation: document.generation, api: { model, basePath: model.basePath } };
      }
      return known.api;
    },
  };
}

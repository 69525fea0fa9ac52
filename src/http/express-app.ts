import { randomUUID } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { errorBody } from '../vocabulary/errors.js';
import type { Sandbox } from '../core/sandbox.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import { answerHeaders } from '../answers/answer-headers.js';
import { toSandboxRequest } from './to-sandbox-request.js';
import { writeResponse } from './write-response.js';

/**
 * The sandbox as an Express 5 app, for mounting in another app (`app.use('/mock', createApp(s))`).
 * Express adds nothing of its own: no body parsers, no X-Powered-By, no HTML error pages.
 */
export function createApp(sandbox: Sandbox): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(async (req: Request, res: Response) => {
    const request = req.baseUrl ? { ...toSandboxRequest(req), mountPath: req.baseUrl } : toSandboxRequest(req);
    // Mounted under a prefix, Express strips it from req.url, which is what the sandbox routes on;
    // the URLs the sandbox hands out (Location, Link) get it back.
    const response = await sandbox.handle(request);
    writeResponse(res, req.baseUrl ? rebase(response, req.baseUrl) : response, request.method);
  });
  app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const body = errorBody('internal_error', 'The sandbox failed on this request');
    writeResponse(res, { status: 500, headers: answerHeaders({ own: {}, requestId: randomUUID(), hasBody: true }), body }, 'GET');
  });
  return app;
}

function rebase(response: SandboxResponse, prefix: string): SandboxResponse {
  const headers = { ...response.headers };
  if (headers.location?.startsWith('/')) headers.location = prefix + headers.location;
  if (headers.link) headers.link = headers.link.replace(/<\//g, `<${prefix}/`);
  return { ...response, headers };
}

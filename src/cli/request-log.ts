import { pino, type Logger } from 'pino';
import type { Exchange } from '../vocabulary/exchange.js';

/** One JSON log line per request: method, path, status, duration, key id (never the key). */
export function requestLogger(level: string): { logger: Logger; log: (exchange: Exchange) => void } {
  const logger = pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
  const log = (exchange: Exchange): void => {
    // Nothing is built for a line that would not be written (the silenced log costs nothing).
    if (exchange.error === undefined ? !logger.isLevelEnabled('info') : !logger.isLevelEnabled('error')) return;
    const { request, response } = exchange;
    const line = {
      reqId: request.id,
      method: request.method,
      // Admin paths may carry a key (`/__sandbox/keys/{key}`): never log it.
      path: request.path.replace(/^(\/__sandbox\/keys\/).+$/, '$1…'),
      status: response.status,
      ms: Math.round(exchange.durationMs * 100) / 100,
      key: exchange.keyId,
      op: exchange.operationId,
    };
    if (exchange.error !== undefined) logger.error({ ...line, err: exchange.error }, 'request failed');
    else logger.info(line, 'request');
  };
  return { logger, log };
}

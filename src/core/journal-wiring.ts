import { ADMIN_PREFIX } from '../admin/admin-surface.js';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { SandboxConfig } from '../config/config.js';
import { toJournalEntry, type Journal } from '../journal/journal.js';
import { redactionFor, type Redaction } from '../journal/redaction.js';
import type { Exchange } from '../vocabulary/exchange.js';
import type { ApiModel } from '../vocabulary/operation.js';

/** The journal redacts the document's apiKey names and every literal secret it knows, when an entry is read. */
export function journalRedaction(config: SandboxConfig, model: ApiModel): Redaction {
  const secrets = [
    ...(config.adminToken === null ? [] : [config.adminToken]),
    ...config.keys.flatMap((k) => (k.password === undefined ? [k.key] : [k.key, k.password])),
  ];
  return redactionFor(model.securitySchemes, secrets);
}

/**
 * The journal hangs off the exchange events like any other listener; an entry's time is its
 * workspace's. The admin API's reads are not journaled: a console or a suite polling them would push
 * the API's own requests out of the journal; its changes (a reset, a clock move, a rule) are.
 */
export function listenerOf(journal: Journal, clocks: WorkspaceClocks): (exchange: Exchange) => void {
  return (exchange) => {
    if (!journal.wants()) return;
    const { method, path } = exchange.request;
    if ((method === 'GET' || method === 'HEAD') && (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`))) return;
    journal.add(toJournalEntry(exchange, clocks.of(exchange.workspace).now()));
  };
}

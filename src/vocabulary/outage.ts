/** Whether a failure means a shared store (Redis) could not be reached, as opposed to a bug. */

/**
 * ioredis's ways of saying the server is out of reach, as opposed to a bug (a script error, a wrong
 * type), which is rethrown. With `enableOfflineQueue: false` a command fails at once while the
 * connection is down; with `commandTimeout` it fails when a server stops answering; with
 * `maxRetriesPerRequest: 0` a command in flight when the connection drops fails at once.
 */
const OUTAGE_MESSAGES = new Set([
  "Stream isn't writeable and enableOfflineQueue options is false",
  "Cluster isn't ready and enableOfflineQueue options is false",
  'Command timed out',
  // The client has given up reconnecting (its retryStrategy said stop) or was closed.
  'Connection is closed.',
  'Cluster is disconnected.',
  'Cluster is disconnecting.',
  'None of startup nodes is available',
  'Node is disconnected',
]);
const OUTAGE_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError', 'AbortError']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** Replies of a server that is up but cannot serve yet: loading its data after a restart, or between failovers. */
const UNAVAILABLE_REPLY = /^(LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY)\b/;

export const isOutage = (error: unknown): error is Error => {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    OUTAGE_MESSAGES.has(error.message) ||
    OUTAGE_NAMES.has(error.name) ||
    (code !== undefined && SOCKET_CODES.has(code)) ||
    (error.name === 'ReplyError' && UNAVAILABLE_REPLY.test(error.message))
  );
};

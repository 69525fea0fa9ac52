import type { Client } from '../limits/limiter.js';

/**
 * How a ban can be cleared before it ends, said at the end of the ban's 429 message: someone who
 * locked themselves out by playing with the limits learns the one call that lets them in again,
 * rather than waiting ten minutes or restarting. A key's own counters and ban are cleared by
 * `POST /__sandbox/keys/{id}/reset`; a client with no key is counted by its address, which only a
 * reset of the whole sandbox clears. Without an admin API a restart is the only way, and the
 * message says how to have one.
 */
export function banHint(adminEnabled: boolean): (client: Client) => string {
  if (!adminEnabled) return () => '. A restart clears it; so does an admin call when the sandbox runs with an admin token';
  return (client) =>
    client.id.startsWith('address:')
      ? '. An admin clears it at once: POST /__sandbox/reset (the whole sandbox) with the admin token'
      : `. An admin clears it at once: POST /__sandbox/keys/${client.id}/reset with the admin token`;
}

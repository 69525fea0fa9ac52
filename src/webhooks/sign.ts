import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Signing per the Standard Webhooks specification: the signature is
 * `v1,` + base64(HMAC-SHA256(secret bytes, `${id}.${timestamp}.${body}`)), the timestamp in whole
 * seconds, the secret written `whsec_<base64 of its bytes>`. The specification's own library signs,
 * so a receiver that verifies with any Standard Webhooks library agrees with us byte for byte.
 */

/** The prefix that marks a Standard Webhooks secret. */
export const SECRET_PREFIX = 'whsec_';

/** The three headers a signed message carries. */
export interface SignatureHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/** A fresh secret: 24 random bytes (192 bits, the size Svix issues), base64, with the prefix. */
export const generateSecret = (): string => SECRET_PREFIX + randomBytes(24).toString('base64');

/**
 * Why a secret cannot sign, or undefined when it can. Checked when a delivery is queued, so a bad
 * secret is refused with a reason instead of failing on every attempt.
 */
export function secretProblem(secret: string): string | undefined {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    return 'the secret is not base64 (a Standard Webhooks secret is whsec_ followed by base64)';
  }
  if (Buffer.from(encoded, 'base64').length < 16) return 'the secret is shorter than 16 bytes';
  return undefined;
}

/**
 * The headers that sign one attempt of a message. The id stays the same across retries and replays
 * (receivers deduplicate on it); the timestamp is the attempt's own, so each attempt is signed anew.
 */
export function signatureHeaders(secret: string, id: string, timestampMs: number, body: string): SignatureHeaders {
  const timestamp = new Date(Math.floor(timestampMs / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestampMs / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
}

import type { OperationSpec, SecurityScheme } from '../vocabulary/operation.js';

/** Where an API key goes in a request, as the document's security scheme says (src/auth/ reads it there). */
export type KeySlot =
  { readonly in: 'header'; readonly name: string; readonly scheme?: string } | { readonly in: 'query' | 'cookie'; readonly name: string };

/** The slot a scheme reads its credential from, or undefined for one the sandbox does not check. */
function slotOf(scheme: SecurityScheme): KeySlot | undefined {
  switch (scheme.kind) {
    case 'bearer':
    case 'oauth2':
    case 'openIdConnect':
      // RFC 6750 §2.1; the token endpoint's tokens and the keys themselves are both accepted.
      return { in: 'header', name: 'authorization', scheme: 'Bearer' };
    case 'basic':
      // RFC 7617: the key as the user-id, with no password (src/auth/check-scheme.ts).
      return { in: 'header', name: 'authorization', scheme: 'Basic' };
    case 'http':
      return { in: 'header', name: 'authorization', scheme: scheme.scheme };
    case 'apiKey':
      return scheme.in === 'header' ? { in: 'header', name: scheme.parameter.toLowerCase() } : { in: scheme.in, name: scheme.parameter };
    case 'unchecked':
      return undefined;
  }
}

/**
 * Where an operation takes a key: every scheme of its first requirement that names one (all of a
 * requirement must be met: OpenAPI 3.1 §4.8.30). A public operation still counts a key sent
 * against that key (src/pipeline/api-surface.ts): it goes where the document's first checkable scheme reads it.
 */
export function keySlots(operation: OperationSpec, schemes: ReadonlyMap<string, SecurityScheme>): readonly KeySlot[] {
  const requirement = operation.security.find((r) => r.length > 0);
  const named = requirement === undefined ? [...schemes.values()] : requirement.flatMap((use) => schemes.get(use.scheme) ?? []);
  const slots = named.flatMap((scheme) => slotOf(scheme) ?? []);
  return requirement === undefined ? slots.slice(0, 1) : slots;
}

/** The value a slot carries for a key. */
export function slotValue(slot: KeySlot, key: string): string {
  if (slot.in !== 'header' || slot.scheme === undefined) return key;
  return slot.scheme === 'Basic' ? `Basic ${Buffer.from(`${key}:`).toString('base64')}` : `${slot.scheme} ${key}`;
}

/** How the slots read in a tool's description: `Authorization: Bearer <key>`, `the query parameter api_key`. */
export function slotText(slots: readonly KeySlot[]): string {
  if (slots.length === 0) return 'nowhere: the document declares no scheme the sandbox checks';
  return slots
    .map((slot) =>
      slot.in === 'header'
        ? slot.scheme === undefined
          ? `the header ${slot.name}`
          : slot.scheme === 'Basic'
            ? 'Authorization: Basic (the key as the user-id, no password)'
            : `Authorization: ${slot.scheme} <key>`
        : `the ${slot.in === 'query' ? 'query parameter' : 'cookie'} ${slot.name}`,
    )
    .join(' and ');
}

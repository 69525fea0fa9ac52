/** A stored record: any fields, and a numeric id the store assigns. */
export type Row = Readonly<Record<string, unknown>> & { readonly id: number };

/**
 * The field a nested collection's records keep their parent's path parameters in (`"1"` for
 * `/users/1/orders`, `"1/7"` two levels down); never shown in an answer.
 */
export const SCOPE_FIELD = '__scope';

/**
 * Copies `from`'s own fields onto `into`, but the one named `except`, in one pass (`{ ...a, ...b }`
 * less a field costs a copy per step on every write). A field named `__proto__` (a JSON body may
 * have one) is copied as a field like any other, never as the prototype.
 */
export function copyFields(into: Record<string, unknown>, from: Readonly<Record<string, unknown>>, except?: string): void {
  for (const name of Object.keys(from)) {
    if (name === except) continue;
    if (name === '__proto__')
      Object.defineProperty(into, name, { value: from[name], enumerable: true, writable: true, configurable: true });
    else into[name] = from[name];
  }
}

/** A stored record: any fields, and a numeric id the store assigns. */
export type Row = Readonly<Record<string, unknown>> & { readonly id: number };

/**
 * The field a nested collection's records keep their parent's path parameters in (`"1"` for
 * `/users/1/orders`, `"1/7"` two levels down); never shown in an answer.
 */
export const SCOPE_FIELD = '__scope';

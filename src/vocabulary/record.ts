/** A stored record: any fields, and a numeric id the store assigns. */
export type Row = Readonly<Record<string, unknown>> & { readonly id: number };

import { follow, isObject, type JsonObject } from './json-pointer.js';
import type { Binding, MediaSpec, OperationSpec, ResponseSpec, StoreAction } from '../vocabulary/operation.js';

/**
 * Which operations the store serves by `x-understudy` bindings, and what an operation answers with.
 * REST conventions for the rest: resources/recognise.ts.
 */

const STORE_ACTIONS: readonly StoreAction[] = ['list', 'create', 'read', 'replace', 'patch', 'delete', 'mock'];

/** The binding of an operation with no `x-understudy` action, until REST conventions decide. */
export const NO_BINDING: Binding = Object.freeze({ action: 'mock', resource: undefined, origin: 'none' });

export function explicitBinding(raw: unknown): Binding | undefined {
  if (!isObject(raw) || raw.action === undefined) return undefined;
  if (!STORE_ACTIONS.includes(raw.action as StoreAction)) {
    throw new Error(`x-understudy.action ${JSON.stringify(raw.action)} is not one of ${STORE_ACTIONS.join(', ')}`);
  }
  const action = raw.action as StoreAction;
  if (action !== 'mock' && typeof raw.resource !== 'string') throw new Error(`x-understudy.action "${action}" needs a "resource"`);
  const pagination = isObject(raw.pagination) ? raw.pagination : {};
  const name = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return {
    action,
    origin: 'document',
    resource: typeof raw.resource === 'string' ? raw.resource : undefined,
    pagination: { limit: name(pagination.limit), after: name(pagination.after) },
  };
}

/** A numeric status of a declared response: `2XX` counts as its lowest code, `default` as none. */
const codeOf = (status: string): number => (/^\dXX$/.test(status) ? Number(status[0]) * 100 : Number(status));

/**
 * The response the sandbox answers a successful request with: the lowest declared 2xx, else
 * `default`, else the first declared (an operation declaring only `101` or `3xx`/`4xx` answers
 * with one of them: the status must be one the document declares, OpenAPI 3.1 §4.8.16).
 */
export function answerResponse(responses: readonly ResponseSpec[]): ResponseSpec | undefined {
  const successes = responses.filter((r) => r.status.startsWith('2')).sort((a, b) => codeOf(a.status) - codeOf(b.status));
  return successes[0] ?? responses.find((r) => r.status === 'DEFAULT') ?? responses[0];
}

/** The response declared for a status: exactly, else its `4XX`-style range, else `default` (OpenAPI 3.1 §4.8.16.2). */
export function declaredResponse(responses: readonly ResponseSpec[], status: number): ResponseSpec | undefined {
  const text = String(status);
  return (
    responses.find((r) => r.status === text) ??
    responses.find((r) => r.status === `${text[0] ?? ''}XX`) ??
    responses.find((r) => r.status === 'DEFAULT')
  );
}

/** The numeric status of that response (`default` and `2XX` answer 200, `3XX` 300…). */
export function answerStatus(response: ResponseSpec | undefined): number {
  if (response === undefined || response.status === 'DEFAULT') return 200;
  return codeOf(response.status);
}

const isJsonLike = (mediaType: string): boolean => /^application\/(?:[\w.+-]*\+)?json(?:;|$)/.test(mediaType) || mediaType === '*/*';

/** The media type an answer is sent as: the first JSON-like one declared, else the first declared. */
export function answerMedia(response: ResponseSpec | undefined): MediaSpec | undefined {
  return response?.content.find((m) => isJsonLike(m.mediaType)) ?? response?.content[0];
}

export const sendsJson = (media: MediaSpec | undefined): boolean => media !== undefined && isJsonLike(media.mediaType);

/** The schema an operation answers with, when it answers JSON. */
export function answerSchema(document: unknown, op: OperationSpec): { value: JsonObject; pointer: string } | undefined {
  const media = answerMedia(answerResponse(op.responses));
  if (!sendsJson(media) || media?.schemaPointer === undefined) return undefined;
  const { value, pointer } = follow(document, media.schemaPointer);
  return isObject(value) ? { value, pointer } : undefined;
}

/**
 * The schema of each item an operation streams (a sequential media type's `itemSchema`, OpenAPI
 * 3.2), when its answer is a stream: a stream of a collection's records lists them.
 */
export function streamedItems(document: unknown, op: OperationSpec): { value: JsonObject; pointer: string } | undefined {
  const pointer = answerMedia(answerResponse(op.responses))?.itemSchemaPointer;
  if (pointer === undefined) return undefined;
  const { value, pointer: at } = follow(document, pointer);
  return isObject(value) ? { value, pointer: at } : undefined;
}

/** The property schema `name` of an object schema, through `allOf`; undefined when it has none. */
export function propertySchema(document: unknown, schema: JsonObject, pointer: string, name: string): JsonObject | undefined {
  return propertyAt(document, schema, pointer, name)?.value;
}

/**
 * A property's schema and where it is, in an object schema or one of its `allOf` members (`{}` for
 * a property whose schema is `true`); undefined when it has none.
 */
export function propertyAt(
  document: unknown,
  schema: JsonObject,
  pointer: string,
  name: string,
  depth = 0,
): { value: JsonObject; pointer: string } | undefined {
  if (depth > 8) return undefined;
  if (isObject(schema.properties) && Object.hasOwn(schema.properties, name)) {
    const found = follow(document, `${pointer}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    return { value: isObject(found.value) ? found.value : {}, pointer: found.pointer };
  }
  const parts = Array.isArray(schema.allOf) ? schema.allOf : [];
  for (let i = 0; i < parts.length; i++) {
    const { value, pointer: at } = follow(document, `${pointer}/allOf/${i}`);
    const found = isObject(value) ? propertyAt(document, value, at, name, depth + 1) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** An object schema's property names, its `allOf` members' included. */
export function propertyNames(document: unknown, schema: JsonObject, pointer: string, depth = 0): string[] {
  const names = isObject(schema.properties) ? Object.keys(schema.properties) : [];
  if (depth > 8 || !Array.isArray(schema.allOf)) return names;
  schema.allOf.forEach((_, i) => {
    const { value, pointer: at } = follow(document, `${pointer}/allOf/${i}`);
    if (isObject(value)) for (const name of propertyNames(document, value, at, depth + 1)) if (!names.includes(name)) names.push(name);
  });
  return names;
}

/**
 * The items of a list answer: the array itself, or the one array property of an envelope
 * (`{data: [...], next}`, its properties possibly spread over `allOf` members, as Scalar Galaxy's are).
 */
export function listItems(
  document: unknown,
  schema: JsonObject,
  pointer: string,
): { value: JsonObject; pointer: string; envelope?: string } | undefined {
  if (schema.type === 'array' || schema.items !== undefined) {
    const { value, pointer: at } = follow(document, `${pointer}/items`);
    return isObject(value) ? { value, pointer: at } : undefined;
  }
  const arrays = propertyNames(document, schema, pointer).filter((name) => {
    const prop = propertyAt(document, schema, pointer, name)?.value;
    return prop !== undefined && (prop.type === 'array' || prop.items !== undefined);
  });
  if (arrays.length !== 1) return undefined;
  const envelope = arrays[0] as string;
  const array = propertyAt(document, schema, pointer, envelope);
  if (array === undefined) return undefined;
  const { value, pointer: at } = follow(document, `${array.pointer}/items`);
  return isObject(value) ? { value, pointer: at, envelope } : undefined;
}

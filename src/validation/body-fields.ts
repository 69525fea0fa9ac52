import { escapePointerToken, follow, isArray, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { variantsOf } from '../openapi/parameters.js';
import { kindOf } from '../openapi/value-kind.js';
import { isParameterStyle, type ParameterSpec, type ValueKind } from '../vocabulary/operation.js';

/**
 * One top-level property of a form or multipart body, with how its text is read: its JSON type
 * (form values are text, so `count=3` must become the integer 3, as in a query), whether it is a
 * file, and its Encoding Object (OpenAPI 3.1 §4.8.15: `contentType`, `style`, `explode`). Built once
 * at start-up.
 */
export interface BodyField {
  readonly name: string;
  /** The field as a query-style parameter, for `parseParameter`. */
  readonly parameter: ParameterSpec;
  /** A file: `format: binary` (3.0), `contentMediaType` or `contentEncoding` (3.1), or an array of those. */
  readonly binary: boolean;
  /** `encoding.<name>.contentType`: the media ranges a part may have (`image/png, image/*`), when declared. */
  readonly contentTypes: readonly string[] | undefined;
  /**
   * The part holds JSON: a declared JSON content type, or an object (its default content type,
   * §4.8.15) whose encoding names no `style` (a style, when given, wins over the content type).
   */
  readonly json: boolean;
  /** For a field of several types (`parameter.variants`): whether its schema accepts a reading. */
  readonly accepts?: (value: unknown) => boolean;
}

const isBinary = (schema: JsonObject | undefined): boolean =>
  schema !== undefined &&
  (schema.format === 'binary' || typeof schema.contentMediaType === 'string' || typeof schema.contentEncoding === 'string');

/** The properties of the schema at `pointer`, `allOf` members included, as `[name, pointer]`. */
export function properties(document: unknown, pointer: string, depth = 0): [string, string][] {
  const { value, pointer: at } = follow(document, pointer);
  if (!isObject(value) || depth > 8) return [];
  const own = isObject(value.properties)
    ? Object.keys(value.properties).map((name): [string, string] => [name, `${at}/properties/${escapePointerToken(name)}`])
    : [];
  const inherited = isArray(value.allOf) ? value.allOf.flatMap((_, i) => properties(document, `${at}/allOf/${i}`, depth + 1)) : [];
  return [...inherited, ...own];
}

/** The fields of a form or multipart media object whose schema is at `schemaPointer`. */
export function bodyFields(
  document: unknown,
  schemaPointer: string,
  compile?: (pointer: string) => (value: unknown) => boolean,
): ReadonlyMap<string, BodyField> {
  const mediaPointer = schemaPointer.replace(/\/schema$/, '');
  const encodings = follow(document, `${mediaPointer}/encoding`).value;
  const fields = new Map<string, BodyField>();
  for (const [name, pointer] of properties(document, schemaPointer)) {
    const schema = follow(document, pointer).value;
    const kind = kindOf(document, pointer);
    const items = isObject(schema) && schema.items !== undefined ? `${follow(document, pointer).pointer}/items` : undefined;
    const encoding = isObject(encodings) && isObject(encodings[name]) ? encodings[name] : {};
    const declared = typeof encoding.contentType === 'string' ? encoding.contentType : undefined;
    const contentTypes = declared?.split(',').map((t) => t.trim().toLowerCase());
    const itemSchema = items ? follow(document, items).value : undefined;
    // Branches of several types are read each way (a `oneOf` of an integer and a string enum);
    // branches of one type as that type.
    // A deepObject field's object comes only as bracketed members (form-members.ts): its plain
    // text (`metadata=`, to clear it) is read as its other types.
    const deep = encoding.style === 'deepObject';
    const shapes = variantsOf(document, pointer).filter((shape) => !deep || shape.kind !== 'object');
    const shape = shapes.length === 1 ? shapes[0] : undefined;
    fields.set(name, {
      name,
      parameter: {
        name,
        in: 'query',
        required: false,
        schemaPointer: pointer,
        kind,
        itemKind: items ? kindOf(document, items) : 'any',
        style: isParameterStyle(encoding.style) ? encoding.style : 'form',
        explode: typeof encoding.explode === 'boolean' ? encoding.explode : encoding.style === undefined || encoding.style === 'form',
        ...shape,
        ...(shapes.length > 1 ? { variants: shapes } : {}),
      },
      ...(shapes.length > 1 && compile ? { accepts: compile(pointer) } : {}),
      binary:
        isBinary(isObject(schema) ? schema : undefined) || (kind === 'array' && isBinary(isObject(itemSchema) ? itemSchema : undefined)),
      contentTypes,
      json: contentTypes
        ? contentTypes.some((t) => t.includes('json'))
        : encoding.style === undefined && (kind === 'object' || kindAll(kind, itemSchema)),
    });
  }
  return fields;
}

const kindAll = (kind: ValueKind, itemSchema: unknown): boolean => kind === 'array' && isObject(itemSchema) && itemSchema.type === 'object';

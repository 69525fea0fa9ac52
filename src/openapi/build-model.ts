import { escapePointerToken, follow, isArray, isObject, type JsonObject } from './json-pointer.js';
import {
  HTTP_METHODS,
  type ApiModel,
  type HeaderSpec,
  type Lifecycle,
  type MediaSpec,
  type OperationSpec,
  type ParameterSpec,
  type ResponseSpec,
  type SecurityRequirement,
  type SecurityScheme,
} from '../vocabulary/operation.js';
import { explicitBinding, inferBindings, NO_BINDING } from './bindings.js';
import { normalize30 } from './normalize-30.js';
import { kindOf, schemaAt } from './value-kind.js';

/**
 * Compiles an OpenAPI 3.0/3.1 document into the plain operation model. Anything the sandbox cannot
 * serve stops here with a message naming the operation, never later on a request.
 */
export function buildApiModel(source: unknown): ApiModel {
  if (!isObject(source)) throw new Error('the OpenAPI document is not an object');
  const dialect = String(source.openapi).startsWith('3.1') ? '3.1' : '3.0';
  const document = (dialect === '3.0' ? normalize30(source) : source) as JsonObject;
  const info = isObject(document.info) ? document.info : {};
  const securitySchemes = compileSecuritySchemes(document);
  const globalSecurity = compileSecurity(document.security, securitySchemes, 'the document');
  const paths = isObject(document.paths) ? document.paths : {};
  const operations: OperationSpec[] = [];
  for (const pathTemplate of Object.keys(paths)) {
    const pathPointer = `#/paths/${escapePointerToken(pathTemplate)}`;
    const { value: pathItem, pointer: itemPointer } = follow(document, pathPointer);
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      if (!isObject(pathItem[method])) continue;
      const opPointer = `${itemPointer}/${method}`;
      const op = pathItem[method];
      const id = typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${pathTemplate}`;
      try {
        operations.push(
          readOperation(document, { id, method, pathTemplate, op, opPointer, itemPointer, pathItem, globalSecurity, securitySchemes }),
        );
      } catch (error) {
        throw new Error(`operation ${id} (${method.toUpperCase()} ${pathTemplate}): ${(error as Error).message}`, { cause: error });
      }
    }
  }
  return {
    title: typeof info.title === 'string' ? info.title : 'API',
    version: typeof info.version === 'string' ? info.version : '0.0.0',
    dialect,
    basePath: basePathOf(document),
    operations: inferBindings(document, operations),
    securitySchemes,
    document,
  };
}

interface OperationSource {
  id: string;
  method: string;
  pathTemplate: string;
  op: JsonObject;
  opPointer: string;
  itemPointer: string;
  pathItem: JsonObject;
  globalSecurity: readonly SecurityRequirement[];
  securitySchemes: ReadonlyMap<string, SecurityScheme>;
}

/** Reads one operation of the document into its plain record. */
function readOperation(document: unknown, src: OperationSource): OperationSpec {
  const parameters = mergeParameters(
    compileParameters(document, src.pathItem.parameters, `${src.itemPointer}/parameters`),
    compileParameters(document, src.op.parameters, `${src.opPointer}/parameters`),
  );
  for (const name of pathNames(src.pathTemplate)) {
    if (!parameters.some((p) => p.in === 'path' && p.name === name)) throw new Error(`path parameter {${name}} is not declared`);
  }
  for (const p of parameters) {
    if (p.in === 'path' && !pathNames(src.pathTemplate).includes(p.name)) throw new Error(`path parameter ${p.name} is not in the path`);
  }
  const security =
    src.op.security === undefined ? src.globalSecurity : compileSecurity(src.op.security, src.securitySchemes, 'the operation');
  return {
    id: src.id,
    method: src.method.toUpperCase(),
    pathTemplate: src.pathTemplate,
    parameters,
    requestBody: compileRequestBody(document, src.op.requestBody, `${src.opPointer}/requestBody`),
    responses: compileResponses(document, src.op.responses, `${src.opPointer}/responses`),
    security,
    binding: explicitBinding(src.op['x-understudy']) ?? NO_BINDING,
    lifecycle: compileLifecycle(src.op),
  };
}

const pathNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');

function compileParameters(document: unknown, raw: unknown, pointer: string): ParameterSpec[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((_, index) => {
    const { value, pointer: at } = follow(document, `${pointer}/${index}`);
    if (!isObject(value) || typeof value.name !== 'string' || typeof value.in !== 'string') {
      throw new Error(`parameter ${index} has no name or location`);
    }
    const location = value.in;
    if (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie') {
      throw new Error(`parameter ${value.name} has an unknown location "${location}"`);
    }
    if (value.content !== undefined) throw new Error(`parameter ${value.name} uses "content"; only "schema" parameters are supported`);
    const schemaPointer = value.schema === undefined ? undefined : `${at}/schema`;
    const kind = kindOf(document, schemaPointer);
    const style = typeof value.style === 'string' ? value.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
    if (!['form', 'simple'].includes(style))
      throw new Error(`parameter ${value.name} uses style "${style}"; form and simple are supported`);
    if (kind === 'object') throw new Error(`parameter ${value.name} is an object; object parameters are not supported`);
    const items = schemaAt(document, schemaPointer)?.items;
    return {
      name: location === 'header' ? value.name.toLowerCase() : value.name,
      in: location,
      required: value.required === true || location === 'path',
      schemaPointer,
      kind,
      itemKind: kind === 'array' && items !== undefined ? kindOf(document, `${schemaPointer}/items`) : 'any',
      style,
      explode: typeof value.explode === 'boolean' ? value.explode : style === 'form',
    };
  });
}

/** Operation-level parameters override path-level ones with the same name and location. */
function mergeParameters(pathLevel: ParameterSpec[], opLevel: ParameterSpec[]): ParameterSpec[] {
  const key = (p: ParameterSpec) => `${p.in}:${p.name}`;
  const own = new Set(opLevel.map(key));
  return [...pathLevel.filter((p) => !own.has(key(p))), ...opLevel];
}

function compileMedia(document: unknown, content: unknown, pointer: string): MediaSpec[] {
  if (!isObject(content)) return [];
  return Object.entries(content).map(([mediaType, media]) => {
    const m = isObject(media) ? media : {};
    const at = `${pointer}/content/${escapePointerToken(mediaType)}`;
    let example: MediaSpec['example'];
    if (m.example !== undefined) example = { value: m.example };
    else if (isObject(m.examples)) {
      const first = Object.keys(m.examples)[0];
      if (first !== undefined) {
        const ex = follow(document, `${at}/examples/${escapePointerToken(first)}`).value;
        if (isObject(ex) && ex.value !== undefined) example = { value: ex.value };
      }
    }
    return { mediaType: mediaType.toLowerCase(), schemaPointer: m.schema === undefined ? undefined : `${at}/schema`, example };
  });
}

function compileRequestBody(document: unknown, raw: unknown, pointer: string): OperationSpec['requestBody'] {
  if (raw === undefined) return undefined;
  const { value, pointer: at } = follow(document, pointer);
  if (!isObject(value)) return undefined;
  return { required: value.required === true, content: compileMedia(document, value.content, at) };
}

function compileResponses(document: unknown, raw: unknown, pointer: string): ResponseSpec[] {
  if (!isObject(raw)) throw new Error('it declares no responses');
  return Object.keys(raw).map((status) => {
    const { value, pointer: at } = follow(document, `${pointer}/${escapePointerToken(status)}`);
    const response = isObject(value) ? value : {};
    const headers: HeaderSpec[] = isObject(response.headers)
      ? Object.keys(response.headers).map((name) => {
          const h = follow(document, `${at}/headers/${escapePointerToken(name)}`);
          const header = isObject(h.value) ? h.value : {};
          const schemaPointer = header.schema === undefined ? undefined : `${h.pointer}/schema`;
          return { name: name.toLowerCase(), required: header.required === true, schemaPointer, kind: kindOf(document, schemaPointer) };
        })
      : [];
    return { status: status.toUpperCase(), headers, content: compileMedia(document, response.content, at) };
  });
}

function compileSecuritySchemes(document: JsonObject): Map<string, SecurityScheme> {
  const schemes = new Map<string, SecurityScheme>();
  const components = isObject(document.components) ? document.components : {};
  const raw = isObject(components.securitySchemes) ? components.securitySchemes : {};
  for (const name of Object.keys(raw)) {
    const { value } = follow(document, `#/components/securitySchemes/${escapePointerToken(name)}`);
    if (!isObject(value)) continue;
    if (value.type === 'http' && String(value.scheme).toLowerCase() === 'bearer') schemes.set(name, { kind: 'bearer', name });
    else if (value.type === 'apiKey' && (value.in === 'header' || value.in === 'query') && typeof value.name === 'string') {
      schemes.set(name, { kind: 'apiKey', name, in: value.in, parameter: value.in === 'header' ? value.name.toLowerCase() : value.name });
    }
  }
  return schemes;
}

function compileSecurity(raw: unknown, schemes: ReadonlyMap<string, SecurityScheme>, where: string): SecurityRequirement[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Error(`${where} has a "security" that is not a list`);
  return raw.map((requirement) => {
    const names = isObject(requirement) ? Object.keys(requirement) : [];
    for (const name of names) {
      if (!schemes.has(name))
        throw new Error(
          `security scheme "${name}" is not declared, or is of a kind the sandbox does not support (http bearer, apiKey in header or query)`,
        );
    }
    return names;
  });
}

function compileLifecycle(op: JsonObject): Lifecycle {
  const date = (field: string): Date | undefined => {
    const raw = op[field];
    if (raw === undefined) return undefined;
    // YAML reads an unquoted date as a Date; a quoted one is a string.
    const parsed = raw instanceof Date ? raw : new Date(typeof raw === 'string' ? raw : NaN);
    if (Number.isNaN(parsed.getTime())) throw new Error(`${field} ${JSON.stringify(raw)} is not a date`);
    return parsed;
  };
  return {
    deprecated: op.deprecated === true,
    deprecatedSince: date('x-deprecated-since'),
    sunset: date('x-sunset'),
    replacedBy: typeof op['x-replaced-by'] === 'string' ? op['x-replaced-by'] : undefined,
  };
}

/** The path of the first server's URL, with its variables at their defaults: `/v1`. */
function basePathOf(document: JsonObject): string {
  const server = isArray(document.servers) ? document.servers[0] : undefined;
  if (!isObject(server) || typeof server.url !== 'string') return '';
  const variables = isObject(server.variables) ? server.variables : {};
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name];
    return isObject(variable) && typeof variable.default === 'string' ? variable.default : '';
  });
  const pathname = new URL(url, 'http://sandbox.invalid').pathname;
  return pathname.replace(/\/+$/, '');
}

import { escapePointerToken, follow, isArray, isObject, type JsonObject } from './json-pointer.js';
import {
  type ApiModel,
  type Lifecycle,
  type OperationSpec,
  type ParameterSpec,
  type SecurityRequirement,
  type SecurityScheme,
} from '../vocabulary/operation.js';
import { inferBindings } from '../resources/recognise.js';
import { explicitBinding, NO_BINDING } from './bindings.js';
import { readRequestBody, readResponses } from './media.js';
import { normalize30 } from './normalize-30.js';
import { ignoreNullable } from './normalize-31.js';
import { asWritten, type Locate } from './original-location.js';
import { mergeParameters, pathNames, readParameters } from './parameters.js';
import { pathOperations } from './path-operations.js';
import { schemaDialect } from './schema-dialect.js';
import { readSecurity, readSecuritySchemes, securityWarnings } from './security-schemes.js';

/**
 * Compiles an OpenAPI 3.0, 3.1 or 3.2 document into the plain operation model. Anything the sandbox cannot
 * serve stops here with a message naming the operation, never later on a request. `locate` (from
 * `readDocument`) says where a pointer into the document stands in the user's file, so warnings
 * about a converted Swagger 2.0 document name the 2.0 original.
 */
export function buildApiModel(source: unknown, locate: Locate = asWritten): ApiModel {
  if (!isObject(source)) throw new Error('the OpenAPI document is not an object');
  const dialect = schemaDialect(source);
  const read = dialect === '3.0' ? { document: normalize30(source), warnings: [] } : ignoreNullable(source, locate);
  const document = read.document as JsonObject;
  const info = isObject(document.info) ? document.info : {};
  const securitySchemes = readSecuritySchemes(document);
  const globalSecurity = readSecurity(document.security, securitySchemes, 'the document');
  const paths = isObject(document.paths) ? document.paths : {};
  const operations: OperationSpec[] = [];
  const warnings: string[] = [];
  const since32 = /^3\.(?:[2-9]|\d{2,})\./.test(String(source.openapi));
  for (const pathTemplate of Object.keys(paths)) {
    const pathPointer = `#/paths/${escapePointerToken(pathTemplate)}`;
    const { value: pathItem, pointer: itemPointer } = follow(document, pathPointer);
    if (!isObject(pathItem)) continue;
    const found = pathOperations(pathItem, itemPointer, locate(itemPointer), since32);
    warnings.push(...found.warnings);
    for (const { method, op, pointer: opPointer } of found.operations) {
      const id = typeof op.operationId === 'string' ? op.operationId : `${method} ${pathTemplate}`;
      try {
        operations.push(
          readOperation(document, { id, method, pathTemplate, op, opPointer, itemPointer, pathItem, globalSecurity, securitySchemes }),
        );
      } catch (error) {
        throw new Error(`operation ${id} (${method} ${pathTemplate}): ${(error as Error).message}`, { cause: error });
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
    warnings: [...read.warnings, ...securityWarnings(securitySchemes, locate), ...warnings],
    document,
    locate,
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
  const declared = mergeParameters(
    readParameters(document, src.pathItem.parameters, `${src.itemPointer}/parameters`),
    readParameters(document, src.op.parameters, `${src.opPointer}/parameters`),
  );
  // OpenAPI 3.1 §4.8.12.2 requires every template expression to be declared and every path
  // parameter to be in the template. Real documents break both; neither stops the start: a path
  // parameter the template lacks can never be sent and is dropped, and an undeclared `{name}` is
  // read as a required string (any non-empty text), so the path stays reachable.
  const names = pathNames(src.pathTemplate);
  const implicit = names
    .filter((name) => !declared.some((p) => p.in === 'path' && p.name === name))
    .map((name) => implicitPathParameter(name));
  const parameters = [...declared.filter((p) => p.in !== 'path' || names.includes(p.name)), ...implicit];
  const security = src.op.security === undefined ? src.globalSecurity : readSecurity(src.op.security, src.securitySchemes, 'the operation');
  return {
    id: src.id,
    method: src.method,
    pathTemplate: src.pathTemplate,
    pointer: src.opPointer,
    parameters,
    requestBody: readRequestBody(document, src.op.requestBody, `${src.opPointer}/requestBody`),
    responses: readResponses(document, src.op.responses, `${src.opPointer}/responses`),
    security,
    binding: explicitBinding(src.op['x-understudy']) ?? NO_BINDING,
    lifecycle: readLifecycle(src.op),
  };
}

const implicitPathParameter = (name: string): ParameterSpec => ({
  name,
  in: 'path',
  required: true,
  schemaPointer: undefined,
  kind: 'string',
  itemKind: 'any',
  style: 'simple',
  explode: false,
});

function readLifecycle(op: JsonObject): Lifecycle {
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

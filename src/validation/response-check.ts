import type { ValidateFunction } from 'ajv';
import type { Violation } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { OperationSpec, ResponseSpec } from '../vocabulary/operation.js';
import { parseParameter } from './parse-parameter.js';
import type { SchemaCompiler } from './schema-compiler.js';
import { toViolations } from './schema-compiler.js';

/**
 * Checks an answer against what the document promises for its status (the exact code, then `2XX`,
 * then `default`): declared headers present when required and valid by schema, and the body valid.
 * Used by tests and by `validation.checkResponses`, so the sandbox never contradicts its contract.
 */
export class ResponseCheck {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    private readonly operation: OperationSpec,
    private readonly compiler: SchemaCompiler,
  ) {}

  check(response: SandboxResponse): Violation[] {
    const spec = this.specFor(response.status);
    // An error status the document does not declare (a 413 the author never thought of) breaks no
    // promise: it is the sandbox's own, in its Error shape. An undeclared success status does.
    if (!spec)
      return response.status >= 400
        ? []
        : [{ location: 'status', message: `${response.status} is not a response ${this.operation.id} declares` }];
    const violations: Violation[] = [];
    for (const header of spec.headers) {
      const value = response.headers[header.name];
      if (value === undefined) {
        if (header.required) violations.push({ location: `header.${header.name}`, message: 'is required' });
        continue;
      }
      if (!header.schemaPointer) continue;
      const parsed = parseParameter(
        {
          name: header.name,
          in: 'header',
          required: false,
          schemaPointer: header.schemaPointer,
          kind: header.kind,
          itemKind: 'any',
          style: 'simple',
          explode: false,
        },
        [value],
      );
      if (!parsed.ok) violations.push({ location: `header.${header.name}`, message: parsed.message });
      else {
        const validate = this.validator(header.schemaPointer);
        if (!validate(parsed.value)) violations.push(...toViolations(`header.${header.name}`, validate.errors));
      }
    }
    const media = spec.content.find((m) => m.mediaType.includes('json')) ?? spec.content[0];
    if (response.body === undefined) {
      if (media) violations.push({ location: 'body', message: 'is missing' });
    } else if (!media) {
      // The sandbox's errors always carry its Error body, even where the document shows none.
      if (response.status < 400) violations.push({ location: 'body', message: 'is sent, but the document declares no content' });
    } else if (media.schemaPointer) {
      const validate = this.validator(media.schemaPointer);
      if (!validate(response.body)) violations.push(...toViolations('body', validate.errors));
    } else if (media.itemSchemaPointer) {
      // A stream (OpenAPI 3.2 `itemSchema`) is its items, each valid on its own.
      const validate = this.validator(media.itemSchemaPointer);
      if (!Array.isArray(response.body)) violations.push({ location: 'body', message: 'is not a sequence of items' });
      else response.body.forEach((item, i) => validate(item) || violations.push(...toViolations(`body.${i}`, validate.errors)));
    }
    return violations;
  }

  private specFor(status: number): ResponseSpec | undefined {
    const responses = this.operation.responses;
    return (
      responses.find((r) => r.status === String(status)) ??
      responses.find((r) => r.status === `${String(status)[0]}XX`) ??
      responses.find((r) => r.status === 'DEFAULT')
    );
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) this.validators.set(pointer, (validate = this.compiler.compile(pointer)));
    return validate;
  }
}

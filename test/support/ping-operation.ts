/**
 * A public `GET /<name>` operation answering `{ok: true}`, as a YAML block to splice in right after
 * a document's `paths:` line: what the reload suites add to a document to see a new generation.
 */
export const pingOperation = (name = 'ping'): string => `  /${name}:
    get:
      operationId: ${name}
      summary: Is it up
      security: []
      responses:
        '200':
          description: Up.
          content:
            application/json:
              schema: { type: object, required: [ok], properties: { ok: { type: boolean } } }
              example: { ok: true }
`;

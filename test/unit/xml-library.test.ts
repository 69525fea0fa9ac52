import { describe, expect, it } from 'vitest';
import type { ApiModel } from '../../src/vocabulary/operation.js';
import { loadXmlFor, xmlLibrary } from '../../src/validation/xml-library.js';

// Only the parts mayUseXml reads: each operation's request body, responses and parameters.
const modelAnswering = (mediaType: string): ApiModel =>
  ({
    operations: [
      { requestBody: undefined, parameters: [], responses: [{ status: '200', content: [{ mediaType: 'application/json' }] }] },
      { requestBody: undefined, parameters: [], responses: [{ status: '200', content: [{ mediaType }] }] },
    ],
  }) as unknown as ApiModel;

describe('the XML library, loaded only for a document that can use XML', () => {
  // In order: the module (fresh in this file) starts with nothing loaded.
  it('stays unloaded for a JSON-only document', async () => {
    await loadXmlFor(modelAnswering('application/problem+json'));
    expect(() => xmlLibrary()).toThrow(/declares no XML media type/);
  });

  it('loads for a wildcard type, which an Accept can make XML', async () => {
    await loadXmlFor(modelAnswering('*/*'));
    expect(typeof xmlLibrary().XMLParser).toBe('function');
  });
});

import { describe, expect, it } from 'vitest';
import { answerHeaders } from '../../src/answers/answer-headers.js';

describe('answer headers', () => {
  it('keep both Vary lists (CORS’s Origin, a forced answer’s Prefer) and both Links', () => {
    const headers = answerHeaders({
      cors: { 'access-control-allow-origin': 'http://localhost:5173', vary: 'Origin' },
      lifecycle: { link: '</v2/pets>; rel="successor-version"' },
      own: { vary: 'Prefer', link: '</v1/pets?after=5>; rel="next"' },
      requestId: 'r-1',
      hasBody: true,
    });
    expect(headers.vary).toBe('Origin, Prefer');
    expect(headers.link).toBe('</v1/pets?after=5>; rel="next", </v2/pets>; rel="successor-version"');
    expect(headers['x-request-id']).toBe('r-1');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('keep a single Vary as it is', () => {
    expect(answerHeaders({ cors: { vary: 'Origin' }, own: {}, requestId: 'r', hasBody: false }).vary).toBe('Origin');
    expect(answerHeaders({ own: { vary: 'Prefer' }, requestId: 'r', hasBody: false }).vary).toBe('Prefer');
  });
});

import { describe, expect, it } from 'vitest';
import { outboundEntry, type SentAttempt } from '../../src/journal/outbound.js';
import { BASE_REDACTION } from '../../src/journal/redaction.js';

const sent = (over: Partial<SentAttempt> = {}): SentAttempt => ({
  delivery: { id: 'msg_1', workspace: 'ws_a', event: 'callback.onPetSold', url: 'http://127.0.0.1:9/cb?access_token=s3cret&x=1' },
  attempt: 3,
  at: 1_000,
  request: {
    method: 'PUT',
    url: 'http://127.0.0.1:9/cb?access_token=s3cret&x=1',
    headers: { 'content-type': 'application/json', authorization: 'Bearer abc' },
    body: '{"id":1}',
  },
  durationMs: 1.23456,
  outcome: 'timeout',
  error: 'no answer within 5000 ms',
  ...over,
});

describe('the journal entry of an attempt the sandbox sent', () => {
  it.each([
    ['callback.onPetSold', 'callback'],
    ['pets.created', 'webhook'],
    ['newPet', 'webhook'],
  ])('an attempt at %s is a %s', (event, kind) => {
    const entry = outboundEntry(sent({ delivery: { ...sent().delivery, event } }), BASE_REDACTION, 5);
    expect(entry.outbound?.kind).toBe(kind);
  });

  it('names the URL it went to, redacts credentials, and has status 0 when nothing answered', () => {
    const entry = outboundEntry(sent(), BASE_REDACTION, 5);
    expect(entry).toMatchObject({
      id: 'msg_1.3',
      time: 1_000,
      wallTime: 5,
      method: 'PUT',
      path: '/cb',
      query: 'access_token=[redacted]&x=1',
      workspace: 'ws_a',
      status: 0,
      durationMs: 1.235,
      request: { headers: { authorization: 'Bearer [redacted]' }, body: { text: '{"id":1}', mimeType: 'application/json' } },
      response: { headers: {} },
      outbound: { attempt: 3, outcome: 'timeout', error: 'no answer within 5000 ms', delivery: 'msg_1' },
    });
    expect(entry.response.body).toBeUndefined();
    expect(entry.outbound?.nextAttemptAt).toBeUndefined();
  });
});

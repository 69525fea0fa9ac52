import type { PreparedOperation } from '../generation/generation.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';

/**
 * The optional last step (`validation.checkResponses`): an answer, with all its headers, that breaks
 * the document becomes a 500 naming why, so the sandbox never contradicts its contract unnoticed.
 * Returns the same answer when it keeps the contract.
 */
export function checkedAnswer(prepared: PreparedOperation, response: SandboxResponse): SandboxResponse {
  const violations = prepared.check.check(response);
  if (violations.length === 0) return response;
  const summary = violations.map((v) => `${v.location} ${v.message}`).join('; ');
  const message = `The sandbox's answer (${response.status}) breaks the document: ${summary}`;
  return { status: 500, headers: {}, body: errorBody('response_contract_violation', message, violations) };
}

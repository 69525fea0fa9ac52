import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { PlainAnswer } from './target.js';

/**
 * A tool's result from the sandbox's answer: the body as the sandbox sent it (an error's is its
 * Error shape `{code, message, status, details?}`), then the status and headers. A status of 400 or
 * more is a tool error (`isError`), so a client and its model see the refusal for what it is.
 */
export function answerResult(answer: PlainAnswer): CallToolResult {
  if (answer.fault !== undefined) {
    const error =
      answer.status === 0
        ? errorBody('service_unavailable', answer.fault)
        : errorBody(
            'injected_fault',
            `The sandbox answered with a ${answer.fault} fault on the wire (a rule or the faults config), not an HTTP answer`,
          );
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] };
  }
  const head = [`HTTP ${answer.status}`, ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`)];
  if (answer.base64 === true) head.push('(the body is bytes, shown in base64)');
  return {
    ...(answer.status >= 400 && { isError: true }),
    content: [
      ...(answer.text === undefined || answer.text === '' ? [] : [{ type: 'text' as const, text: answer.text }]),
      { type: 'text', text: head.join('\n') },
    ],
  };
}

/** A refusal made before any request (arguments that cannot be placed), in the sandbox's Error shape. */
export function errorResult(error: ErrorBody): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] };
}

/** A tool's own answer (not the sandbox's): JSON text. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

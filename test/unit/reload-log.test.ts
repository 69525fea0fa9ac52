import { describe, expect, it } from 'vitest';
import { reloadLog } from '../../src/cli/reload-log.js';

const FAIL = 'reload failed; generation 1 still serves: api.yaml:3:1: bad indentation';

describe('reloadLog', () => {
  it('logs a repeated failure once, then its count before the next outcome', () => {
    const lines: string[] = [];
    const log = reloadLog((level, message) => lines.push(`${level} ${message}`));
    for (let n = 0; n < 4; n++) {
      log.started('api.yaml changed');
      log.notice({ level: 'error', message: FAIL });
    }
    log.started('api.yaml changed');
    log.notice({ level: 'info', message: 'reloaded: generation 2, 5 operations' });
    expect(lines).toEqual([
      'info reloading: api.yaml changed',
      `error ${FAIL}`,
      `error the same failure 3 more times: ${FAIL}`,
      'info reloading: api.yaml changed',
      'info reloaded: generation 2, 5 operations',
    ]);
  });

  it('logs the count at stop, and a different failure at once', () => {
    const lines: string[] = [];
    const log = reloadLog((_level, message) => lines.push(message));
    log.notice({ level: 'error', message: FAIL });
    log.notice({ level: 'error', message: FAIL });
    log.notice({ level: 'error', message: `${FAIL}!` });
    log.notice({ level: 'error', message: `${FAIL}!` });
    log.flush();
    log.flush();
    expect(lines).toEqual([FAIL, `the same failure 1 more time: ${FAIL}`, `${FAIL}!`, `the same failure 1 more time: ${FAIL}!`]);
  });
});

import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port free on loopback now (the OS's choice; closed again for the server under test to take). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

/**
 * The processes whose parent is `pid`, from /proc (each /proc/<pid>/stat names its parent after
 * the command's closing parenthesis; the command itself may hold spaces and parentheses).
 */
export function childrenOf(pid: number): { pid: number; command: string }[] {
  const children: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) !== pid) continue;
    let command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    try {
      command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() || command;
    } catch {
      // gone since: its name from stat will do
    }
    children.push({ pid: Number(entry), command });
  }
  return children;
}

/** Resolves with the exit code (or the signal's name) once `child` has exited, at once if it has. */
export const exitOf = (child: ChildProcess): Promise<number | string> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode ?? String(child.signalCode))
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? String(signal))));

/**
 * Stops a child spawned `detached` (the leader of its own process group) with everything it
 * started: SIGTERM to the group, SIGKILL to it if it has not gone within `graceMs`.
 */
export async function stopGroup(child: ChildProcess, graceMs = 5_000): Promise<void> {
  const signal = (name: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, name);
    } catch {
      // the group is gone already
    }
  };
  const exited = exitOf(child);
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  // What the leader started and left running (a server a shell put in the background) goes too.
  signal('SIGKILL');
}

/**
 * Polls `attempt` every `everyMs` until it returns something other than undefined, for at most
 * `forMs`; a server's start is no event a test can wait on, its answering is. `gone` ends the wait
 * early (the server exited).
 */
export async function pollFor<T>(
  attempt: () => Promise<T | undefined>,
  { everyMs = 20, forMs = 30_000, gone }: { everyMs?: number; forMs?: number; gone?: () => string | undefined } = {},
): Promise<T> {
  const deadline = performance.now() + forMs;
  for (;;) {
    const result = await attempt();
    if (result !== undefined) return result;
    const why = gone?.();
    if (why !== undefined) throw new Error(why);
    if (performance.now() > deadline) throw new Error(`nothing within ${forMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The status of GET `url`, or undefined while nothing answers there. */
export async function statusOf(url: string, headers: Record<string, string> = {}): Promise<number | undefined> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

// How busy the machine was with work that is not the bench: CPU time of the whole machine
// (/proc/stat) minus the harness's and the server's own (/proc/<pid>/stat). Linux only; null elsewhere.
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** @returns {{ busy: number, total: number } | null} clock ticks of all cores */
function machineTicks() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    // Interrupt time is left out of `busy`: on loopback it is mostly the bench's own traffic, and
    // the kernel charges it to no process.
    const busy = user + nice + system + steal;
    return { busy, total: busy + idle + iowait + irq + softirq };
  } catch {
    return null;
  }
}

/** @param {number | 'self'} pid @returns {number | null} user + system clock ticks of the process */
export function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
  } catch {
    return null;
  }
}

/**
 * This process's ticks and those of its children it has waited for (cutime, cstime): wrk runs as a
 * child, and its time is the bench's own, not other load's. @returns {number | null}
 */
function selfAndChildrenTicks() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return null;
  }
}

/** @param {number[]} pids @returns {number | null} the processes' ticks together, null when one cannot be read */
function ticksOf(pids) {
  let total = 0;
  for (const pid of pids) {
    const ticks = processTicks(pid);
    if (ticks === null) return null;
    total += ticks;
  }
  return total;
}

/**
 * Starts counting; `stop()` gives the share of the machine's CPU (0..1, all cores) used by anything
 * other than this process, its finished children (a wrk run) and `pid` meanwhile, or null when it
 * cannot tell.
 * @param {number | number[]} pid  the server, or every process of a target (replicas, Redis, a proxy)
 */
export function foreignCpu(pid) {
  const pids = Array.isArray(pid) ? pid : [pid];
  const before = { machine: machineTicks(), self: selfAndChildrenTicks(), server: ticksOf(pids) };
  return {
    stop() {
      const machine = machineTicks();
      const self = selfAndChildrenTicks();
      const server = ticksOf(pids);
      if (!machine || !before.machine || self === null || before.self === null || server === null || before.server === null) return null;
      const total = machine.total - before.machine.total;
      if (total <= 0) return null;
      const foreign = machine.busy - before.machine.busy - (self - before.self) - (server - before.server);
      return Math.max(0, foreign / total);
    },
  };
}

/**
 * Starts counting; `stop()` gives, for each process, how many cores it kept busy meanwhile (1 = one
 * core all the time), null for one it cannot read. @param {(number | 'self')[]} pids
 */
export function coresUsed(pids) {
  const before = { machine: machineTicks(), each: pids.map(processTicks) };
  return {
    stop() {
      const machine = machineTicks();
      const each = pids.map(processTicks);
      const perCore = machine && before.machine ? (machine.total - before.machine.total) / os.cpus().length : 0;
      return each.map((ticks, i) => {
        const was = before.each[i];
        return ticks === null || was === null || was === undefined || perCore <= 0 ? null : (ticks - was) / perCore;
      });
    },
  };
}

/**
 * Waits until the machine has been nearly idle (other work under `threshold` of its CPU) for a
 * whole `windowMs`, or `maxWaitS` has passed. Call it while the bench itself is idle.
 * @param {number} maxWaitS @param {number} threshold @param {number} windowMs
 * @returns {Promise<{ waitedMs: number, quiet: boolean }>}
 */
export async function waitForQuiet(maxWaitS, threshold, windowMs = 1000) {
  const started = Date.now();
  for (;;) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = machineTicks();
    const share = before && after && after.total > before.total ? (after.busy - before.busy) / (after.total - before.total) : 0;
    const waitedMs = Date.now() - started;
    if (share < threshold) return { waitedMs, quiet: true };
    if (waitedMs >= maxWaitS * 1000) return { waitedMs, quiet: false };
  }
}

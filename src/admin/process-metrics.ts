import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
let histogram: IntervalHistogram | undefined;

/** The histogram records the whole interval between its timer's runs; the delay is what exceeds it. */
const lateness = (ns: number): number => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);

/** The process's event-loop delay in ms, measured from the first time it is asked for. */
export function eventLoopDelayMs(): { readonly p50: number; readonly p99: number; readonly max: number } {
  if (!histogram) {
    histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
  }
  return { p50: lateness(histogram.percentile(50)), p99: lateness(histogram.percentile(99)), max: lateness(histogram.max) };
}

#!/usr/bin/env node
// A flame graph of a V8 CPU profile (the .cpuprofile JSON `node --cpu-prof` writes), as one standalone SVG file: the
// profile stays on this machine (no speedscope, no upload) and the picture can sit next to the bench results.
// Classic layout: root at the bottom, each bar's width its share of the busy time (not time order), children sorted
// by label so the same profile always gives the same bytes. Colours say whose code a frame is: ours, a dependency's,
// Node's, V8's. A hand-written SVG string, like chart.mjs; a tiny inline script zooms on click (no external reference).
//   node bench/flame.mjs PROFILE.cpuprofile OUT.svg [--title "text"] [--min 0.2]
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WIDTH = 1200;
const PAD = 10;
const PLOT = WIDTH - 2 * PAD;
const ROW = 16;
/** Frame labels are monospace so that truncation can count characters: 11 px x ~0.6 em per character. */
const FONT = 11;
const CHAR = 6.6;
/** Narrower bars get no text at all: two or three characters and an ellipsis say nothing. */
const MIN_TEXT = 30;
const HEADER = 96;

/**
 * Whose code a frame is. Hue says the origin; the lightness range leaves room to vary per function (see colorOf).
 * Warm for what we don't write (dependencies, V8), cool for what we do (ours) and what Node does around it.
 */
const ORIGINS = {
  ours: { name: 'ours (dist/)', hue: 212, sat: 62 },
  deps: { name: 'dependencies (node_modules)', hue: 34, sat: 88 },
  node: { name: 'Node internals (node:)', hue: 140, sat: 42 },
  native: { name: 'V8, native, GC', hue: 354, sat: 68 },
};
const ROOT_COLOR = '#a0aec0';

/** @param {string} s */
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** @param {number} n */
const px = (n) => (Math.round(n * 10) / 10).toString();
/** @param {number} us */
const ms = (us) => (us / 1000).toFixed(1);
/** @param {number} us */
const seconds = (us) => (us / 1e6).toFixed(1);

/**
 * @typedef {object} CallFrame
 * @property {string} functionName @property {string} url @property {number} lineNumber @property {number} [columnNumber]
 */
/**
 * @typedef {object} ProfileNode
 * @property {number} id @property {CallFrame} callFrame @property {number[]} [children] @property {number} [parent]
 */
/**
 * @typedef {object} CpuProfile
 * @property {ProfileNode[]} nodes @property {number[]} [samples] @property {number[]} [timeDeltas]
 * @property {number} [startTime] @property {number} [endTime]
 */
/**
 * One bar: the profile's nodes with the same function, file and line under the same parent, merged.
 * @typedef {object} Frame
 * @property {string} name @property {string} url @property {number} line
 * @property {string} label  `functionName file:line`, shortened
 * @property {number} self   µs sampled in the frame itself
 * @property {number} total  µs in the frame and below
 * @property {Map<string, Frame>} children  by merge key
 */

/**
 * The file part of a label: a dependency by its package path, our compiled code by its path under dist/ (which mirrors
 * src/), Node's builtins as they are.
 * @param {string} url
 */
export function shortFile(url) {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length);
  return url.replace(/^file:\/\//, '');
}

/** @param {string} name @param {string} url @param {number} line */
function labelOf(name, url, line) {
  const fn = name === '' ? '(anonymous)' : name;
  if (url === '') return fn;
  // V8 counts lines from 0; editors and stack traces from 1.
  return `${fn} ${shortFile(url)}${line >= 0 ? `:${line + 1}` : ''}`;
}

/**
 * Empty url covers V8's builtins and native bindings (writev, RegExp: …) and code made by `new Function` (Ajv's
 * validateN): none of it is a file anyone can open. Whatever is neither a dependency nor Node's is the project's own
 * (dist/, and scripts/ or bench/ when those are profiled).
 * @param {string} name @param {string} url @returns {keyof typeof ORIGINS}
 */
function originOf(name, url) {
  if (url === '' || name.startsWith('(')) return 'native';
  if (url.includes('node_modules')) return 'deps';
  if (url.startsWith('node:')) return 'node';
  return 'ours';
}

/** FNV-1a: a stable small hash, so the same function gets the same shade in every graph. @param {string} s */
function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * hsl() as #rrggbb: SVG 1.1 readers (rsvg, older viewers) know only hex and rgb().
 * @param {number} h @param {number} s @param {number} l
 */
function hex(h, s, l) {
  const sat = s / 100;
  const light = l / 100;
  const a = sat * Math.min(light, 1 - light);
  const channel = (/** @type {number} */ n) => {
    const k = (n + h / 30) % 12;
    const v = light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

/** The origin's hue, a little lighter or darker per function name, so that neighbours stay apart. @param {Frame} f */
function colorOf(f) {
  const o = ORIGINS[originOf(f.name, f.url)];
  return hex(o.hue, o.sat, 56 + (hash(f.name || f.label) % 17));
}

/**
 * The merged tree of a profile, its root's `total` the busy time, and the idle time left out of it.
 * @param {CpuProfile} profile
 */
export function buildTree(profile) {
  /** @type {Map<number, ProfileNode>} */
  const byId = new Map();
  for (const n of profile.nodes) byId.set(n.id, n);
  // Older profiles (and Chrome's trace format) link a node to its parent instead of listing children.
  /** @type {Map<number, number[]>} */
  const childrenOf = new Map();
  const hasChild = new Set();
  for (const n of profile.nodes) {
    const kids = n.children ?? [];
    childrenOf.set(n.id, [...(childrenOf.get(n.id) ?? []), ...kids]);
    for (const k of kids) hasChild.add(k);
    if (n.parent !== undefined && !n.children) {
      childrenOf.set(n.parent, [...(childrenOf.get(n.parent) ?? []), n.id]);
      hasChild.add(n.id);
    }
  }
  const root = profile.nodes.find((n) => !hasChild.has(n.id));
  if (!root) throw new Error('flame: the profile has no root node');

  // Each sample weighs the time since the one before (V8's timeDeltas). The first delta counts from the profile's start,
  // and a delta can come out negative when samples arrive out of order: such time is counted as none.
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  /** @type {Map<number, number>} */
  const selfById = new Map();
  let all = 0;
  samples.forEach((id, i) => {
    const d = Math.max(0, deltas[i] ?? 0);
    all += d;
    selfById.set(id, (selfById.get(id) ?? 0) + d);
  });

  /** @type {(n: ProfileNode) => Frame} */
  const frameOf = (n) => {
    const { functionName: name = '', url = '', lineNumber: line = -1 } = n.callFrame;
    return { name, url, line, label: labelOf(name, url, line), self: 0, total: 0, children: new Map() };
  };
  const tree = { ...frameOf(root), label: 'all' };
  tree.self = selfById.get(root.id) ?? 0;
  let idle = 0;
  // Iterative: a deep recursion in the profiled program must not become a stack overflow here.
  /** @type {[number, Frame][]} */
  const stack = (childrenOf.get(root.id) ?? []).map((id) => [id, tree]);
  while (stack.length > 0) {
    const [id, parent] = /** @type {[number, Frame]} */ (stack.pop());
    const node = byId.get(id);
    if (!node) continue;
    const self = selfById.get(id) ?? 0;
    // Idle is the event loop waiting: no work to see, and its share would only squeeze every bar that is.
    if (node.callFrame.functionName === '(idle)' && node.callFrame.url === '') {
      idle += self;
      continue;
    }
    const fresh = frameOf(node);
    const key = `${fresh.name}\u0000${fresh.url}\u0000${fresh.line}`;
    const frame = parent.children.get(key) ?? fresh;
    parent.children.set(key, frame);
    frame.self += self;
    for (const child of childrenOf.get(id) ?? []) stack.push([child, frame]);
  }
  // Totals bottom-up, again without recursion: every frame comes after its parent in `order`, so walk it backwards.
  /** @type {Frame[]} */
  const order = [];
  /** @type {Frame[]} */
  const pending = [tree];
  while (pending.length > 0) {
    const f = /** @type {Frame} */ (pending.pop());
    order.push(f);
    pending.push(...f.children.values());
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const f = /** @type {Frame} */ (order[i]);
    f.total = f.self;
    for (const c of f.children.values()) f.total += c.total;
  }
  return { tree, busy: tree.total, idle, all, samples: samples.length };
}

/** Children in label order (the merge key breaks ties between files that shorten alike). @param {Frame} f */
const sorted = (f) =>
  [...f.children.entries()]
    .sort(([ka, a], [kb, b]) => (a.label < b.label ? -1 : a.label > b.label ? 1 : ka < kb ? -1 : ka > kb ? 1 : 0))
    .map(([, c]) => c);

/** The label cut to what fits in `width` px, with an ellipsis; '' when nothing useful fits. @param {string} label @param {number} width */
function fit(label, width) {
  if (width < MIN_TEXT) return '';
  const chars = Math.floor((width - 6) / CHAR);
  if (label.length <= chars) return label;
  return chars >= 3 ? `${label.slice(0, chars - 1)}…` : '';
}

/**
 * Click-to-zoom: the clicked frame and everything above it widen to the full width, its ancestors span it (dimmed),
 * the rest hides; clicking the bottom bar goes back. Frames dropped as too narrow stay dropped. Positions are in
 * data-x/data-w (share of busy time, to 7 places: hence the 1e-6 slack), the full label is the first line of each frame's <title>.
 */
const ZOOM = `<script><![CDATA[
(function () {
  var L = ${PAD}, W = ${PLOT}, C = ${CHAR}, MIN = ${MIN_TEXT};
  var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));
  function num(g, a) { return parseFloat(g.getAttribute(a)); }
  function fit(s, w) {
    if (w < MIN) return '';
    var n = Math.floor((w - 6) / C);
    return s.length <= n ? s : n >= 3 ? s.slice(0, n - 1) + '\\u2026' : '';
  }
  function zoom(t) {
    var x0 = num(t, 'data-x'), w0 = num(t, 'data-w'), d0 = num(t, 'data-d'), e = 1e-6;
    frames.forEach(function (g) {
      var x = num(g, 'data-x'), w = num(g, 'data-w'), d = num(g, 'data-d');
      var above = d >= d0 && x >= x0 - e && x + w <= x0 + w0 + e;
      var below = d < d0 && x <= x0 + e && x + w >= x0 + w0 - e;
      g.style.display = above || below ? '' : 'none';
      if (!above && !below) return;
      var nx = below ? 0 : ((x - x0) / w0) * W, nw = below ? W : (w / w0) * W;
      var r = g.querySelector('rect'), s = g.querySelector('text');
      r.setAttribute('x', L + nx);
      r.setAttribute('width', Math.max(nw - 0.5, 0.5));
      g.style.opacity = below && d0 > 0 ? '0.6' : '';
      s.setAttribute('x', L + nx + 3);
      s.textContent = fit(g.querySelector('title').textContent.split('\\n')[0], nw);
    });
  }
  document.documentElement.addEventListener('click', function (ev) {
    var g = ev.target.closest ? ev.target.closest('g.f') : null;
    if (g) zoom(g);
  });
})();
]]></script>`;

/**
 * The flame graph of a CPU profile, as an SVG document.
 * @param {CpuProfile} profile
 * @param {{ title?: string, minPercent?: number }} [options]  minPercent: frames under this share of busy time are left out
 * @returns {string}
 */
export function flameSvg(profile, options = {}) {
  return render(buildTree(profile), options);
}

/**
 * The SVG of a tree buildTree made (the CLI builds it once for the picture and the busy time it prints).
 * @param {ReturnType<typeof buildTree>} built
 * @param {{ title?: string, minPercent?: number }} [options]
 * @returns {string}
 */
function render({ tree, busy, idle, all, samples }, { title = 'CPU profile', minPercent = 0.2 } = {}) {
  const minUs = (busy * minPercent) / 100;
  const share = (/** @type {number} */ us) => (busy > 0 ? us / busy : 0);

  /** @type {{ frame: Frame, x: number, depth: number }[]} */
  const placed = [];
  /** @type {[Frame, number, number][]} */
  const todo = busy > 0 ? [[tree, 0, 0]] : [];
  let depthMax = 0;
  while (todo.length > 0) {
    const [frame, x, depth] = /** @type {[Frame, number, number]} */ (todo.pop());
    placed.push({ frame, x, depth });
    depthMax = Math.max(depthMax, depth);
    // A dropped child leaves a gap: its time stays in the parent's width, which is the honest picture.
    let cx = x;
    for (const c of sorted(frame)) {
      if (c.total >= minUs && c.total > 0) todo.push([c, cx, depth + 1]);
      cx += share(c.total);
    }
  }
  // Depth-first order from a stack comes out reversed per level; sort for stable, readable output.
  placed.sort((a, b) => a.depth - b.depth || a.x - b.x);

  const height = HEADER + (depthMax + 1) * ROW + PAD;
  const idleShare = all > 0 ? (100 * idle) / all : 0;
  const subtitle = `busy ${seconds(busy)} s of ${seconds(all)} s; idle ${idleShare.toFixed(1)}% left out; ${samples.toLocaleString('en-US')} samples`;
  /** @type {string[]} */
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>${esc(`${title}: flame graph`)}</title>`,
    `<style>g.f { cursor: pointer; } g.f:hover rect { stroke: #1a202c; stroke-width: 0.8; }</style>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${PAD}" y="24" font-size="16" font-weight="bold">${esc(title)}</text>`,
    `<text x="${PAD}" y="44" fill="#333">${esc(subtitle)}</text>`,
  );
  Object.values(ORIGINS).forEach((o, i) => {
    const lx = PAD + i * 230;
    out.push(
      `<rect x="${lx}" y="53" width="14" height="12" fill="${hex(o.hue, o.sat, 64)}"/>`,
      `<text x="${lx + 20}" y="63">${esc(o.name)}</text>`,
    );
  });
  out.push(
    `<text x="${PAD}" y="84" fill="#555" font-size="11">${esc(`width: share of busy time, not time order; frames under ${minPercent}% of it left out; hover for times, click to zoom, click the bottom bar to go back`)}</text>`,
  );

  out.push(`<g font-family="Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="${FONT}">`);
  for (const { frame, x, depth } of placed) {
    const w = share(frame.total) * PLOT;
    const rx = PAD + x * PLOT;
    const y = HEADER + (depthMax - depth) * ROW;
    const tip =
      frame === tree
        ? `all\nbusy ${ms(busy)} ms, ${(100 - idleShare).toFixed(1)}% of the profile`
        : `${frame.label}\nself ${ms(frame.self)} ms, total ${ms(frame.total)} ms, ${(100 * share(frame.total)).toFixed(2)}% of busy time`;
    out.push(
      `<g class="f" data-x="${x.toFixed(7)}" data-w="${share(frame.total).toFixed(7)}" data-d="${depth}"><title>${esc(tip)}</title>` +
        `<rect x="${px(rx)}" y="${y}" width="${px(Math.max(w - 0.5, 0.5))}" height="${ROW - 1}" fill="${frame === tree ? ROOT_COLOR : colorOf(frame)}"/>` +
        `<text x="${px(rx + 3)}" y="${y + 11.5}">${esc(fit(frame.label, w))}</text></g>`,
    );
  }
  out.push('</g>', ZOOM, '</svg>');
  return `${out.join('\n')}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  /** @type {string[]} */
  const files = [];
  /** @type {{ title?: string, minPercent?: number }} */
  const options = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--title') options.title = args[++i];
    else if (a === '--min') options.minPercent = Number(args[++i]);
    else if (a !== undefined) files.push(a);
  }
  const [input, output] = files;
  const min = options.minPercent;
  const badTitle = args.includes('--title') && options.title === undefined;
  const badMin = min !== undefined && !(min >= 0 && min <= 100);
  if (!input || !output || files.length > 2 || badTitle || badMin) {
    process.stderr.write('usage: node bench/flame.mjs PROFILE.cpuprofile OUT.svg [--title "text"] [--min 0.2]\n');
    process.exit(2);
  }
  options.title ??= basename(input);
  const profile = /** @type {CpuProfile} */ (JSON.parse(readFileSync(input, 'utf8')));
  const built = buildTree(profile);
  writeFileSync(output, render(built, options));
  process.stdout.write(`flame: wrote ${output} (busy ${ms(built.busy)} ms)\n`);
}

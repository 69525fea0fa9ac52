// The admin console: the live request journal, the keys' rate windows, the clock, workspaces,
// rules and reloads, all read from the admin API with the admin token this tab was given. Sections
// in files of their own (webhooks.js) are loaded first and made here (`window.consoleSections`).
// Everything the server sends is shown with textContent, never parsed as HTML.
'use strict';

(() => {
  const STORE = 'understudy.adminToken';
  const MAX_ROWS = 200;
  const POLL_MS = 2000;
  const METRICS_EVERY = 5;
  // The stream sends a heartbeat every 15 s: one silent for longer than this is dead, whatever the socket says.
  const STALL_MS = 40000;
  const PRESETS = {
    respond: { match: { operationId: 'listPets' }, respond: { status: 503 }, times: 1 },
    latency: { match: { operationId: 'listPets' }, latency: { fixed: 200 } },
    fault: { match: { operationId: 'getPet' }, fault: { fault: 'connection_reset', probability: 0.5 } },
  };

  const $ = (id) => document.getElementById(id);
  // The page lives at <admin>/console (or <admin>/console/): the admin API is the folder above it.
  const ADMIN = new URL(location.pathname.endsWith('/') ? '..' : '.', location.href);
  const ADMIN_PATH = ADMIN.pathname.replace(/\/$/, '');

  let token = null;
  let now = null; // the shared sandbox clock, in Unix seconds, as last read
  let poller;
  let polls = 0;
  let busy = false;
  let again = false;
  let cache = {};
  let armed = null; // { action, id, until }: a destructive button clicked once, awaiting a second click
  const stream = { controller: null, timer: undefined, attempts: 0, retryMs: 3000 };
  const rows = new Map(); // request id → { tr, entry }
  let hideUpTo = 0; // "clear view": entries answered at or before this wall time stay hidden
  const clocks = new Map(); // workspace id → its sandbox clock, in Unix seconds, as last read
  let sections = []; // { read, render } from other files: read on every refresh, drawn after the rest

  // ---- small helpers -------------------------------------------------------------------------

  const storage = {
    get: () => {
      try {
        return sessionStorage.getItem(STORE);
      } catch {
        return null;
      }
    },
    set: (value) => {
      try {
        if (value === null) sessionStorage.removeItem(STORE);
        else sessionStorage.setItem(STORE, value);
      } catch {
        // Storage refused: the token lasts as long as the page.
      }
    },
  };

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'className') node.className = value;
      else if (name === 'text') node.textContent = String(value);
      else if (name.startsWith('data-') || name === 'title' || name === 'colspan' || name === 'tabindex' || name === 'type')
        node.setAttribute(name, String(value));
      else node[name] = value;
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  const pad = (n) => String(n).padStart(2, '0');
  const iso = (ms) => new Date(ms).toISOString();
  const dateTime = (seconds) =>
    iso(seconds * 1000)
      .replace('T', ' ')
      .slice(0, 19);
  const clockTime = (ms) => iso(ms).slice(11, 19);
  function duration(seconds) {
    const s = Math.max(0, Math.round(seconds));
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
    return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  }
  const megabytes = (bytes) => `${Math.round(bytes / 1048576)} MB`;

  function show(id, message) {
    const node = $(id);
    node.textContent = message || '';
    node.hidden = !message;
  }

  /** An error in the Error shape: its message, then each detail at its location. */
  function showError(id, error) {
    const node = $(id);
    node.replaceChildren(el('p', { text: error.message }));
    if (Array.isArray(error.details) && error.details.length > 0) {
      node.append(el('ul', {}, ...error.details.map((d) => el('li', {}, el('code', { text: d.location }), ` ${d.message}`))));
    }
    node.hidden = false;
  }

  // ---- the admin API --------------------------------------------------------------------------

  class SignedOut extends Error {}

  async function api(path, method = 'GET', body) {
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(new URL(path, ADMIN), {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      cache: 'no-store',
    });
    if (res.status === 401) {
      signOut('The sandbox refused the admin token: sign in again.');
      throw new SignedOut('signed out');
    }
    const text = res.status === 204 ? '' : await res.text();
    let data;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) {
      const error = new Error((data && data.message) || `The sandbox answered ${res.status}`);
      error.details = data && data.details;
      throw error;
    }
    return data;
  }

  /** Runs an action from a button: disabled while it runs, its error shown in `errorId`, then a fresh look. */
  async function act(button, errorId, action) {
    button.disabled = true;
    try {
      await action();
      if (errorId) show(errorId, '');
    } catch (error) {
      if (!(error instanceof SignedOut) && errorId) showError(errorId, error);
    } finally {
      button.disabled = false;
    }
    if (token) await refresh();
  }

  // ---- signing in and out ---------------------------------------------------------------------

  async function signIn(event) {
    event.preventDefault();
    await signInWith($('token-input').value.trim());
  }

  /** Checks a token against the admin API, then keeps it for this tab and starts. */
  async function signInWith(value) {
    if (!value) return;
    $('token-submit').disabled = true;
    show('token-error', '');
    try {
      const res = await fetch(new URL('status', ADMIN), { headers: { authorization: `Bearer ${value}` }, cache: 'no-store' });
      if (res.status === 401) throw new Error('That is not the admin token this sandbox was started with.');
      if (!res.ok) throw new Error(`The admin API answered ${res.status}: is the sandbox started with --admin-token?`);
      storage.set(value);
      $('token-input').value = '';
      start(value);
    } catch (error) {
      show('token-error', error.message === 'Failed to fetch' ? 'The sandbox did not answer.' : error.message);
      $('token-input').focus();
    } finally {
      $('token-submit').disabled = false;
    }
  }

  function start(value) {
    token = value;
    $('token-form').hidden = true;
    for (const id of ['app', 'bar-signed-in', 'bar-metrics', 'sign-out']) $(id).hidden = false;
    polls = 0;
    void refresh();
    poller = setInterval(() => {
      if (document.visibilityState !== 'hidden') void refresh();
    }, POLL_MS);
    connect();
  }

  function signOut(message) {
    token = null;
    storage.set(null);
    clearInterval(poller);
    clearTimeout(stream.timer);
    if (stream.controller) stream.controller.abort();
    stream.controller = null;
    rows.clear();
    $('journal').replaceChildren();
    cache = {};
    now = null;
    for (const id of ['app', 'bar-signed-in', 'bar-metrics', 'sign-out', 'notice']) $(id).hidden = true;
    $('token-form').hidden = false;
    show('token-error', message || '');
    $('token-input').focus();
  }

  // ---- polling ---------------------------------------------------------------------------------

  /** Reads everything but the journal; a call made while one runs makes it run once more after. */
  async function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const withMetrics = polls++ % METRICS_EVERY === 0;
        const calls = ['clock', 'keys', 'workspaces', 'rules', 'status', withMetrics ? 'metrics' : null];
        const results = await Promise.allSettled([
          ...calls.map((path) => (path ? api(path) : Promise.resolve(null))),
          ...sections.map((section) => section.read()),
        ]);
        if (!token) return;
        const failed = results.find((r) => r.status === 'rejected' && !(r.reason instanceof SignedOut));
        show('notice', failed ? `The sandbox did not answer: ${failed.reason.message}` : '');
        const value = (i) => (results[i].status === 'fulfilled' ? results[i].value : null);
        if (value(0)) renderClock(value(0).now);
        if (value(1)) renderIfChanged('keys', [value(1), now], () => renderKeys(value(1).keys));
        if (value(2)) renderIfChanged('workspaces', [value(2), armed], () => renderWorkspaces(value(2)));
        if (value(3)) renderIfChanged('rules', value(3), () => renderRules(value(3)));
        if (value(4)) renderIfChanged('status', value(4), () => renderStatus(value(4)));
        if (value(5)) renderMetrics(value(5));
        if (value(2)) for (const w of value(2).workspaces) clocks.set(w.id, w.clock.now);
        sections.forEach((section, i) => value(calls.length + i) && section.render(value(calls.length + i)));
      } while (again && token);
    } finally {
      busy = false;
    }
  }

  function renderIfChanged(name, data, render) {
    const text = JSON.stringify(data);
    if (cache[name] === text) return;
    cache[name] = text;
    render();
  }

  // ---- clock ---------------------------------------------------------------------------------

  function renderClock(seconds) {
    now = seconds;
    const text = `${dateTime(seconds)} UTC`;
    $('clock-now').textContent = text;
    $('clock-now').dataset.now = String(seconds);
    $('clock-now').dateTime = iso(seconds * 1000);
    $('bar-now').textContent = text;
    const ahead = seconds - Math.floor(Date.now() / 1000);
    $('clock-offset').textContent =
      Math.abs(ahead) <= 2
        ? 'Reads real time.'
        : `${duration(Math.abs(ahead))} ${ahead > 0 ? 'ahead of' : 'behind'} this computer's clock.`;
  }

  // ---- keys ----------------------------------------------------------------------------------

  function gauge(window) {
    const share = window.limit > 0 ? Math.min(1, window.used / window.limit) : 1;
    const fill = el('span', { className: 'gauge-fill' });
    fill.style.width = `${(share * 100).toFixed(1)}%`;
    const level = window.remaining === 0 ? 'gauge full' : share >= 0.8 ? 'gauge high' : 'gauge';
    const resetIn = now === null ? '' : `resets in ${duration(window.reset - now)}`;
    return el(
      'td',
      {
        'data-window': window.window,
        'data-label': window.window === 'minute' ? 'Minute' : 'Day',
        'data-reset': window.reset,
        title: `resets at ${dateTime(window.reset)} UTC`,
      },
      el('span', { className: level }, fill),
      el('span', { className: 'gauge-text', text: `${window.used} / ${window.limit}` }),
      el('span', { className: 'sub', text: resetIn }),
    );
  }

  function renderKeys(keys) {
    $('keys').replaceChildren(
      ...keys.map((key) => {
        const windows = Object.fromEntries(key.windows.map((w) => [w.window, w]));
        const banned = key.bannedUntil !== null && (now === null || key.bannedUntil > now);
        // A key locked out (banned, or a window spent) is let in again with one click.
        const locked = banned || key.windows.some((w) => w.remaining === 0);
        const clear = locked
          ? el('button', {
              type: 'button',
              className: 'button button-small',
              'data-clear-key': key.id,
              text: 'Clear',
              title: 'Forget this key’s counters and ban',
            })
          : null;
        const ban = banned
          ? el(
              'td',
              { className: 'bad', 'data-label': 'Ban', 'data-banned-until': key.bannedUntil },
              'banned',
              el('span', { className: 'sub', text: `ends in ${duration(key.bannedUntil - (now || 0))}` }),
              clear,
            )
          : el(
              'td',
              { 'data-label': 'Ban' },
              'not banned',
              el('span', { className: 'sub', text: `${key.refusalsThisMinute} / ${key.banThreshold} refusals this minute` }),
              clear,
            );
        return el(
          'tr',
          { 'data-key-id': key.id },
          el(
            'td',
            {},
            key.name ? el('strong', { className: 'key-name', text: key.name }) : null,
            el('code', { text: key.id }),
            el('span', { className: 'sub', text: key.configured ? 'configured' : 'issued' }),
          ),
          el('td', { 'data-label': 'Plan', text: key.plan }),
          el('td', { 'data-label': 'Workspace' }, el('code', { text: key.workspace })),
          windows.minute ? gauge(windows.minute) : el('td'),
          windows.day ? gauge(windows.day) : el('td'),
          ban,
        );
      }),
    );
  }

  // ---- workspaces ------------------------------------------------------------------------------

  function confirmButton(label, action, id) {
    const sure = armed && armed.action === action && armed.id === id && armed.until > Date.now();
    return el('button', {
      type: 'button',
      className: sure ? 'button button-small button-danger' : 'button button-small button-quiet',
      [`data-${action}`]: id,
      text: sure ? `${label}: sure?` : label,
    });
  }

  function renderWorkspaces(list) {
    $('workspaces').replaceChildren(
      ...list.workspaces.map((w) =>
        el(
          'tr',
          { 'data-workspace-id': w.id },
          el('td', {}, el('code', { text: w.id }), w.permanent ? el('span', { className: 'sub', text: 'permanent' }) : null),
          el('td', { className: 'num', 'data-label': 'Keys', text: w.keys.length }),
          el('td', { className: 'num', 'data-label': 'Requests', text: w.requests }),
          el('td', { className: 'num', 'data-label': 'Writes', text: w.recordsWritten }),
          el(
            'td',
            { 'data-label': 'Clock' },
            dateTime(w.clock.now),
            el('span', { className: 'sub', text: w.clock.follows ? 'shared clock' : 'own clock' }),
          ),
          el('td', { 'data-label': 'Last used', text: dateTime(Date.parse(w.lastUsedAt) / 1000) }),
          el(
            'td',
            { className: 'actions' },
            el('div', {}, confirmButton('Reset', 'ws-reset', w.id), w.permanent ? null : confirmButton('Delete', 'ws-delete', w.id)),
          ),
        ),
      ),
    );
    const evicted = list.evicted.map((w) => w.id);
    show('workspaces-evicted', evicted.length ? `Evicted recently (their keys no longer work): ${evicted.join(', ')}` : '');
  }

  // ---- rules -----------------------------------------------------------------------------------

  function renderRules(rules) {
    $('rules').replaceChildren(
      ...rules.map((rule) => {
        const { id, applied, remaining, ...shape } = rule;
        const uses = remaining === undefined ? `applied ${applied}×` : `applied ${applied}×, ${remaining} left`;
        return el(
          'li',
          { 'data-rule-id': id },
          el('div', { className: 'rule-head' }, el('strong', { text: id }), el('span', { className: 'sub', text: uses })),
          el('code', { className: 'rule-json', text: JSON.stringify(shape) }),
          el('button', { type: 'button', className: 'button button-small button-quiet', 'data-delete-rule': id, text: 'Delete' }),
        );
      }),
    );
    $('rules-empty').hidden = rules.length > 0;
    $('rules-clear').disabled = rules.length === 0;
  }

  // ---- reload ----------------------------------------------------------------------------------

  function renderStatus(status) {
    const fact = (term, value) => [el('dt', { text: term }), el('dd', { text: value })];
    $('reload-facts').replaceChildren(
      ...fact('Generation', String(status.generation)),
      ...fact('Started', `${dateTime(Date.parse(status.loadedAt) / 1000)} UTC`),
    );
    const last = status.lastReload;
    const box = $('reload-last');
    box.replaceChildren();
    box.className = last ? (last.ok ? 'reload ok' : 'reload bad') : '';
    if (last) {
      const when = `${dateTime(Date.parse(last.at) / 1000)} UTC`;
      box.append(
        el('p', {
          text: last.ok
            ? `Last reload at ${when} loaded generation ${last.generation}.`
            : `Last reload at ${when} failed; generation ${last.generation} still serves.`,
        }),
      );
      if (last.errors.length) box.append(el('ul', {}, ...last.errors.map((e) => el('li', {}, el('pre', { text: e })))));
      if (last.restartNeeded) box.append(el('p', { text: `Needs a restart to take effect: ${last.restartNeeded.join(', ')}.` }));
    }
    $('reload-count').textContent = String(status.files.length);
    $('reload-files').replaceChildren(...status.files.map((f) => el('li', {}, el('code', { text: f }))));
  }

  function renderMetrics(m) {
    $('bar-metrics').textContent = `up ${duration(m.uptimeSeconds)} · RSS ${megabytes(m.rssBytes)} · ${m.inFlight} in flight`;
  }

  // ---- the journal -------------------------------------------------------------------------------

  const isAdmin = (entry) => [ADMIN_PATH, '/__sandbox'].some((p) => entry.path === p || entry.path.startsWith(`${p}/`));

  function appliedText(applied) {
    if (!applied) return '';
    const parts = [];
    if (applied.rule) parts.push(applied.rule);
    if (applied.preference) parts.push(`prefer ${applied.preference}`);
    if (applied.delayMs) parts.push(`+${Math.round(applied.delayMs)} ms`);
    if (applied.fault) parts.push(`fault ${applied.fault}`);
    if (applied.injectedStatus) parts.push(`injected ${applied.injectedStatus}`);
    return parts.join(', ');
  }

  function entryRow(entry) {
    const target = entry.query ? `${entry.path}?${entry.query}` : entry.path;
    const family = `s${String(entry.status).charAt(0)}`;
    // What the client waited: the journal's durationMs leaves out a delay a rule or preference added.
    const delay = (entry.applied && entry.applied.delayMs) || 0;
    const latency = entry.durationMs + delay;
    return el(
      'tr',
      {
        className: 'entry',
        tabindex: 0,
        'data-request-id': entry.id,
        'data-wall-time': entry.wallTime,
        title: 'Show the request and its answer',
      },
      el('td', { className: 'time', text: clockTime(entry.time), title: iso(entry.time) }),
      el('td', { className: 'method', text: entry.method }),
      el('td', { className: 'path', text: target, title: target }),
      el('td', { className: 'status-cell' }, el('span', { className: `status ${family}`, text: entry.status, title: entry.code })),
      el('td', { className: 'operation', text: entry.operationId || '—' }),
      el('td', { className: 'key', text: entry.keyName || entry.keyId || '—', title: entry.keyName ? entry.keyId : null }),
      el('td', {
        className: 'num latency',
        text: `${latency.toFixed(1)} ms`,
        title: delay ? `${entry.durationMs} ms answering + ${delay} ms delay` : null,
      }),
      el('td', { className: 'applied', text: appliedText(entry.applied) }),
    );
  }

  function messageText(first, message) {
    const lines = [first];
    for (const [name, value] of Object.entries(message.headers || {})) lines.push(`${name}: ${value}`);
    const body = message.body;
    if (body) {
      let text = body.text;
      if (!body.encoding && /json/.test(body.mimeType || '')) {
        try {
          text = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          // Not JSON after all: shown as it came.
        }
      }
      lines.push('', body.encoding ? `(${body.size} bytes, base64)\n${text}` : text);
      if (body.truncated) lines.push(`… (${body.size} bytes in all; the journal keeps the first 64 KiB)`);
    }
    return lines.join('\n');
  }

  /** An entry's facts, request and answer: what the journal shows when a row is opened (and the report's entry links). */
  function entryDetail(entry) {
    const target = entry.query ? `${entry.path}?${entry.query}` : entry.path;
    const extra = [`Request id ${entry.id}`, `Workspace ${entry.workspace}`];
    if (entry.limit) extra.push(`Rate limit ${entry.limit.remaining} / ${entry.limit.limit} left${entry.limit.banned ? ', banned' : ''}`);
    if (entry.change) extra.push(`Store: ${entry.change}`);
    if (entry.applied) extra.push(`Applied: ${appliedText(entry.applied)}`);
    for (const v of entry.violations || []) extra.push(`Violation at ${v.location}: ${v.message}`);
    return [
      el('ul', { className: 'detail-facts' }, ...extra.map((line) => el('li', { text: line }))),
      el(
        'div',
        { className: 'detail-grid' },
        el('div', {}, el('h3', { text: 'Request' }), el('pre', { text: messageText(`${entry.method} ${target}`, entry.request) })),
        el(
          'div',
          {},
          el('h3', { text: 'Answer' }),
          el('pre', { text: messageText(`${entry.status}${entry.code ? ` ${entry.code}` : ''}`, entry.response) }),
        ),
      ),
    ];
  }

  function detailRow(entry) {
    return el('tr', { className: 'detail', 'data-detail-for': entry.id }, el('td', { colspan: 8 }, ...entryDetail(entry)));
  }

  function toggleDetail(tr) {
    const next = tr.nextElementSibling;
    if (next && next.classList.contains('detail')) {
      next.remove();
      tr.classList.remove('open');
      return;
    }
    const held = rows.get(tr.dataset.requestId);
    if (!held) return;
    tr.after(detailRow(held.entry));
    tr.classList.add('open');
  }

  function removeRow(id) {
    const held = rows.get(id);
    if (!held) return;
    const next = held.tr.nextElementSibling;
    if (next && next.classList.contains('detail')) next.remove();
    held.tr.remove();
    rows.delete(id);
  }

  /** Adds an entry: on top (from the stream), or in its place by wall time (from the history). */
  function addEntry(entry, onTop) {
    if (rows.has(entry.id) || entry.wallTime <= hideUpTo) return;
    if (isAdmin(entry) && !$('journal-admin').checked) return;
    const tr = entryRow(entry);
    const body = $('journal');
    let before = null;
    if (onTop) before = body.firstElementChild;
    else {
      for (const row of body.querySelectorAll('tr.entry')) {
        if (Number(row.dataset.wallTime) < entry.wallTime) {
          before = row;
          break;
        }
      }
    }
    body.insertBefore(tr, before);
    rows.set(entry.id, { tr, entry });
    while (rows.size > MAX_ROWS) {
      const oldest = body.querySelectorAll('tr.entry');
      removeRow(oldest[oldest.length - 1].dataset.requestId);
    }
    $('journal-empty').hidden = true;
  }

  async function loadHistory() {
    try {
      const entries = await api(`requests?limit=${MAX_ROWS}`);
      for (const entry of entries) addEntry(entry, false);
    } catch {
      // The stream still shows what comes next; the next reconnect tries again.
    }
    $('journal-empty').hidden = rows.size > 0;
  }

  function setLive(live, text) {
    const node = $('journal-live');
    node.dataset.live = String(live);
    node.textContent = text;
  }

  /** Server-Sent Events read with fetch (an EventSource cannot send the token), reconnecting after a drop. */
  async function connect() {
    const controller = new AbortController();
    stream.controller = controller;
    setLive(false, stream.attempts ? 'reconnecting…' : 'connecting…');
    let stalled = false;
    let quiet;
    const listen = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => {
        stalled = true;
        controller.abort();
      }, STALL_MS);
    };
    try {
      const res = await fetch(new URL('requests/stream', ADMIN), {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        cache: 'no-store',
        signal: controller.signal,
      });
      if (res.status === 401) {
        signOut('The sandbox refused the admin token: sign in again.');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      stream.attempts = 0;
      setLive(true, 'live');
      void loadHistory();
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      let data = [];
      for (;;) {
        listen();
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, end).replace(/\r$/, '');
          buffer = buffer.slice(end + 1);
          if (line === '') {
            if (data.length) receive(data.join('\n'));
            data = [];
          } else if (!line.startsWith(':')) {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'data') data.push(text);
            else if (field === 'retry' && /^\d+$/.test(text)) stream.retryMs = Number(text);
          }
        }
      }
    } catch {
      // Dropped or refused: reconnect below, unless this stream was stopped on purpose.
    }
    clearTimeout(quiet);
    if ((controller.signal.aborted && !stalled) || stream.controller !== controller || !token) return;
    stream.attempts += 1;
    setLive(false, 'reconnecting…');
    // 1 s, 2 s, then the stream's own `retry` (3 s).
    stream.timer = setTimeout(connect, Math.min(stream.retryMs, 500 * 2 ** stream.attempts));
  }

  function receive(data) {
    try {
      addEntry(JSON.parse(data), true);
    } catch {
      // Not an entry: nothing to show.
    }
  }

  function clearJournal() {
    for (const { entry } of rows.values()) hideUpTo = Math.max(hideUpTo, entry.wallTime);
    rows.clear();
    $('journal').replaceChildren();
    $('journal-empty').hidden = false;
  }

  // ---- wiring -----------------------------------------------------------------------------------

  function onClick(event) {
    const target = event.target;
    if (!(target instanceof window.Element)) return;
    const button = target.closest('button');
    if (button) {
      const { advance, deleteRule, wsReset, wsDelete, preset, clearKey } = button.dataset;
      if (clearKey) return void act(button, 'keys-error', () => api(`keys/${encodeURIComponent(clearKey)}/reset`, 'POST'));
      if (advance)
        return void act(button, 'clock-error', async () =>
          renderClock((await api('clock', 'POST', { advanceSeconds: Number(advance) })).now),
        );
      if (deleteRule) return void act(button, 'rule-error', () => api(`rules/${encodeURIComponent(deleteRule)}`, 'DELETE'));
      if (preset) {
        $('rule-json').value = JSON.stringify(PRESETS[preset]);
        return;
      }
      if (wsReset || wsDelete) {
        const action = wsReset ? 'ws-reset' : 'ws-delete';
        const id = wsReset || wsDelete;
        if (!armed || armed.action !== action || armed.id !== id || armed.until < Date.now()) {
          armed = { action, id, until: Date.now() + 4000 };
          setTimeout(() => void refresh(), 4100);
          return void refresh();
        }
        armed = null;
        const path = `workspaces/${encodeURIComponent(id)}`;
        return void act(button, 'workspaces-error', () => (wsReset ? api(`${path}/reset`, 'POST') : api(path, 'DELETE')));
      }
      return;
    }
    const row = target.closest('tr.entry');
    if (row) toggleDetail(row);
  }

  function wire() {
    $('token-form').addEventListener('submit', signIn);
    $('sign-out').addEventListener('click', () => signOut(''));
    document.addEventListener('click', onClick);
    $('journal').addEventListener('keydown', (event) => {
      const row = event.target instanceof window.Element ? event.target.closest('tr.entry') : null;
      if (row && (event.key === 'Enter' || event.key === ' ')) {
        event.preventDefault();
        toggleDetail(row);
      }
    });
    $('journal-clear').addEventListener('click', clearJournal);
    $('journal-admin').addEventListener('change', () => {
      rows.clear();
      hideUpTo = 0;
      $('journal').replaceChildren();
      void loadHistory();
    });
    $('clock-reset').addEventListener('click', (event) =>
      act(event.currentTarget, 'clock-error', async () => renderClock((await api('clock', 'DELETE')).now)),
    );
    $('reload-run').addEventListener('click', (event) =>
      act(event.currentTarget, null, async () => {
        try {
          await api('reload', 'POST');
        } catch (error) {
          if (error instanceof SignedOut) throw error;
          // A failed reload shows in the status's last reload, read right after.
        }
      }),
    );
    $('rule-add').addEventListener('click', (event) =>
      act(event.currentTarget, 'rule-error', () => api('rules', 'POST', $('rule-json').value)),
    );
    $('rules-clear').addEventListener('click', (event) => act(event.currentTarget, 'rule-error', () => api('rules', 'DELETE')));
    document.addEventListener('visibilitychange', () => {
      if (token && document.visibilityState === 'visible') void refresh();
    });
  }

  // What the console's other files (report.js) use: the admin API with this tab's token, and the journal's views.
  window.understudyConsole = Object.freeze({ api, el, showError, show, entryDetail, SignedOut });

  wire();
  // What a section of another file may use: the helpers and the admin API, never this file's state.
  const kit = {
    el,
    api,
    act,
    refresh: async () => token && refresh(),
    show,
    showError,
    dateTime,
    duration,
    renderIfChanged,
    clockOf: (ws) => clocks.get(ws) ?? now,
  };
  sections = (window.consoleSections || []).map((make) => make(Object.freeze(kit)));
  $('rule-json').value = JSON.stringify(PRESETS.respond);
  // The start prints the console's URL with the token in its fragment (`#token=…`): a fragment never
  // reaches a server or a log. It is taken once and removed from the address bar and the history.
  const given = new URLSearchParams(location.hash.slice(1)).get('token');
  if (given) window.history.replaceState(null, '', location.pathname + location.search);
  const kept = storage.get();
  if (given) {
    signOut('');
    void signInWith(given);
  } else if (kept) start(kept);
  else signOut('');
})();

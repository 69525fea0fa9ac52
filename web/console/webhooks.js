// The console's webhooks: the subscriptions (listed, added, removed) and the deliveries, newest
// first, each with its attempts a click away and a Replay button. console.js reads them with the
// rest of the admin API on every refresh, and after every action (a clock move included).
// Everything the server sends is shown with textContent, never parsed as HTML.
'use strict';

(window.consoleSections = window.consoleSections || []).push((kit) => {
  const { el, api, act, show, dateTime, duration } = kit;
  const $ = (id) => document.getElementById(id);
  /** Deliveries drawn at most: the newest. The engine keeps up to 200 per workspace. */
  const SHOWN = 50;
  /** Node's error codes, as a person would say them. */
  const CAUSES = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    EPIPE: 'connection closed',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ENOTFOUND: 'name not found',
    EAI_AGAIN: 'name lookup failed',
  };
  const open = new Set(); // the deliveries whose attempts are shown
  let latest = null;

  const at = (ms) => `${dateTime(ms / 1000)}`;
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  function attrs(node, values) {
    for (const [name, value] of Object.entries(values)) node.setAttribute(name, String(value));
    return node;
  }

  /** One attempt in a few words: "503 after 12 ms", "connection refused after 2 ms", "refused: … not in outbound.allow". */
  function attemptText(attempt) {
    const took = `after ${Math.round(attempt.durationMs)} ms`;
    const error = attempt.error || '';
    if (attempt.response) {
      // "the receiver answered 503" says no more than the status does.
      const plain = !error || /^the receiver answered \d+$/.test(error);
      return `${attempt.response.status} ${took}${plain ? '' : ` (${error})`}`;
    }
    const code = /\(([A-Z_]+)\)$/.exec(error);
    const cause = (code && CAUSES[code[1]]) || error || 'no answer';
    if (attempt.outcome === 'refused') return `refused: ${cause}`;
    if (attempt.outcome === 'timeout') return cause;
    return `${cause} ${took}`;
  }

  /** When a time on the sandbox clock falls, from where the workspace's clock stands. */
  function fromNow(ms, workspace) {
    const clock = kit.clockOf(workspace);
    if (clock === null || clock === undefined) return '';
    const left = ms / 1000 - clock;
    return left <= 0.5 ? 'due now' : `in ${duration(left)}`;
  }

  // ---- subscriptions ---------------------------------------------------------------------------

  function subscriptionRow(s) {
    const remove = el('button', {
      type: 'button',
      className: 'button button-small button-quiet',
      'data-unsubscribe': s.id,
      text: 'Remove',
    });
    attrs(remove, { 'aria-label': `Remove the subscription to ${s.event} at ${s.url}` });
    return el(
      'tr',
      { 'data-subscription-id': s.id },
      el('td', {}, el('code', { text: s.event }), el('span', { className: 'sub', text: s.configured ? 'configured' : 'added' })),
      el('td', { className: 'receiver', 'data-label': 'Receiver' }, el('code', { text: s.url, title: s.url })),
      el('td', { 'data-label': 'Workspace' }, el('code', { text: s.workspace })),
      el('td', { className: 'actions' }, el('div', {}, remove)),
    );
  }

  // ---- deliveries ------------------------------------------------------------------------------

  function deliveryRow(d) {
    const last = d.attempts[d.attempts.length - 1];
    const why = d.status === 'refused' && d.reason ? d.reason : last ? attemptText(last) : 'not attempted yet';
    const shown = open.has(d.id);
    const toggle = d.attempts.length
      ? attrs(el('button', { type: 'button', className: 'link', 'data-attempts': d.id, text: plural(d.attempts.length, 'attempt') }), {
          'aria-expanded': shown,
          'aria-controls': `attempts-${d.id}`,
        })
      : el('span', { className: 'sub', text: 'none yet' });
    const replay = attrs(
      el('button', { type: 'button', className: 'button button-small button-quiet', 'data-replay': d.id, text: 'Replay' }),
      {
        'aria-label': `Replay ${d.event} delivery ${d.id}`,
      },
    );
    return el(
      'tr',
      { 'data-delivery-id': d.id, 'data-status': d.status },
      el('td', { className: 'time', 'data-label': 'Queued (UTC)', text: at(d.createdAt) }),
      el('td', {}, el('code', { text: d.event }), el('span', { className: 'sub', text: d.workspace })),
      el('td', { className: 'receiver', 'data-label': 'Receiver' }, el('code', { text: d.url, title: d.url })),
      el(
        'td',
        { className: 'delivery-status', 'data-label': 'Status' },
        el('span', { className: `pill pill-${d.status}`, text: d.status }),
        el('span', { className: 'sub', text: why }),
      ),
      el('td', { className: 'attempts-cell', 'data-label': 'Attempts' }, toggle),
      d.nextAttemptAt === undefined
        ? el('td', { className: 'next', 'data-label': 'Next attempt', text: '—' })
        : el(
            'td',
            { className: 'next time', 'data-label': 'Next attempt', 'data-next': d.nextAttemptAt },
            at(d.nextAttemptAt),
            el('span', { className: 'sub', text: fromNow(d.nextAttemptAt, d.workspace) }),
          ),
      el('td', { className: 'actions' }, el('div', {}, replay)),
    );
  }

  function attemptItem(a) {
    const answered = a.response && a.response.body ? a.response.body.slice(0, 300) : '';
    return el(
      'li',
      { className: `attempt attempt-${a.outcome}`, 'data-attempt': a.attempt },
      el('strong', { text: `#${a.attempt}${a.replay ? ' (replay)' : ''}` }),
      el('span', { className: 'time', text: `${at(a.at)} UTC` }),
      el('span', { className: 'attempt-text', text: attemptText(a) }),
      a.nextAttemptAt === undefined ? null : el('span', { className: 'sub', text: `retry due ${at(a.nextAttemptAt)} UTC` }),
      answered ? el('code', { className: 'answered', text: answered }) : null,
    );
  }

  function detailRow(d) {
    const facts = [`Message id ${d.id}`, `Workspace ${d.workspace}`];
    if (d.reason) facts.push(`Refused: ${d.reason}`);
    const sent = d.attempts.length ? d.attempts[d.attempts.length - 1].request : null;
    let body = sent ? sent.body : '';
    try {
      body = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // Not JSON: shown as it was sent.
    }
    return el(
      'tr',
      { className: 'detail', id: `attempts-${d.id}`, 'data-attempts-for': d.id },
      el(
        'td',
        { colspan: 7 },
        el('ul', { className: 'detail-facts' }, ...facts.map((line) => el('li', { text: line }))),
        el('ol', { className: 'attempts' }, ...d.attempts.map(attemptItem)),
        sent ? el('pre', { className: 'sent', text: `${sent.method || 'POST'} ${sent.url}\n\n${body}` }) : null,
      ),
    );
  }

  // ---- drawing -----------------------------------------------------------------------------------

  /** Redraws inside `container`, giving focus back to the button that had it (a poll must not lose a keyboard user's place). */
  function keepingFocus(container, draw) {
    const active = document.activeElement;
    const name = active && container.contains(active) ? ['replay', 'unsubscribe', 'attempts'].find((n) => active.dataset[n]) : null;
    const selector = name ? `[data-${name}="${window.CSS.escape(active.dataset[name])}"]` : null;
    draw();
    const again = selector && container.querySelector(selector);
    if (again) again.focus();
  }

  function draw() {
    if (!latest) return;
    const { webhooks, newest, total, status } = latest;
    keepingFocus($('webhooks-section'), () => {
      $('subscriptions').replaceChildren(...webhooks.map(subscriptionRow));
      $('deliveries').replaceChildren(...newest.flatMap((d) => (open.has(d.id) ? [deliveryRow(d), detailRow(d)] : [deliveryRow(d)])));
    });
    $('subscriptions-empty').hidden = webhooks.length > 0;
    $('deliveries-empty').hidden = total > 0;
    $('deliveries-empty').textContent = status ? `No ${status} deliveries.` : 'No deliveries yet.';
    show('deliveries-more', total > SHOWN ? `Showing the newest ${SHOWN} of ${total}.` : '');
  }

  async function read() {
    const status = $('deliveries-status').value;
    const [subscriptions, list] = await Promise.all([
      api('webhooks'),
      api(`webhooks/deliveries${status ? `?status=${encodeURIComponent(status)}` : ''}`),
    ]);
    return { webhooks: subscriptions.webhooks, deliveries: list.deliveries, status };
  }

  function render(data) {
    // The API lists them oldest first.
    const newest = data.deliveries.slice(-SHOWN).reverse();
    latest = { webhooks: data.webhooks, newest, total: data.deliveries.length, status: data.status };
    // "in 5 s" moves with the clocks of the workspaces that have an attempt due.
    const clocks = newest.filter((d) => d.nextAttemptAt !== undefined).map((d) => kit.clockOf(d.workspace));
    kit.renderIfChanged('webhooks', [latest, clocks], draw);
  }

  // ---- wiring -------------------------------------------------------------------------------------

  function subscribe(event) {
    event.preventDefault();
    const body = { event: $('subscribe-event').value.trim(), url: $('subscribe-url').value.trim() };
    const workspace = $('subscribe-workspace').value.trim();
    if (workspace) body.workspace = workspace;
    void act($('subscribe-submit'), 'webhooks-error', async () => {
      const made = await api('webhooks', 'POST', body);
      $('subscribe-form').reset();
      const note = $('subscribe-secret');
      note.replaceChildren(
        `Subscribed ${made.id} to ${made.event}. Deliveries are signed with `,
        el('code', { text: made.secret }),
        ': it is shown only now.',
      );
      note.hidden = false;
    });
  }

  $('webhooks-section').addEventListener('click', (event) => {
    const button = event.target instanceof window.Element ? event.target.closest('button') : null;
    if (!button) return;
    const { replay, unsubscribe, attempts } = button.dataset;
    if (replay) {
      // The answer comes when the attempt is queued: one more look shortly after shows how it went.
      void act(button, 'webhooks-error', () => api(`webhooks/deliveries/${encodeURIComponent(replay)}/replay`, 'POST')).then(() =>
        setTimeout(() => void kit.refresh(), 500),
      );
    } else if (unsubscribe) void act(button, 'webhooks-error', () => api(`webhooks/${encodeURIComponent(unsubscribe)}`, 'DELETE'));
    else if (attempts) {
      if (!open.delete(attempts)) open.add(attempts);
      draw();
    }
  });
  $('subscribe-form').addEventListener('submit', subscribe);
  $('deliveries-status').addEventListener('change', () => void kit.refresh());

  return { read, render };
});

// The console's integration report: a verdict on one client (a key or a workspace) from the journal,
// read from GET <admin>/report, with each finding's journal entries a click away. It stands on
// console.js (loaded first), which signs in and lends its admin API call and its journal entry view.
// Everything the server sends is shown with textContent, never parsed as HTML.
'use strict';

(() => {
  const shared = window.understudyConsole;
  if (!shared) return;
  const { api, el, showError, show, entryDetail, SignedOut } = shared;
  const $ = (id) => document.getElementById(id);

  const VERDICT_WORDS = { pass: 'Pass', warn: 'Warn', fail: 'Fail' };

  const verdictBadge = (verdict) =>
    el('span', { className: `verdict verdict-${verdict}`, 'data-verdict': verdict, text: VERDICT_WORDS[verdict] || verdict });

  /** The keys (by name, else id) or the workspaces, offered as the subject is typed. */
  async function offerSubjects() {
    try {
      const kind = $('report-kind').value;
      const values =
        kind === 'key'
          ? (await api('keys')).keys.map((key) => key.name || key.id)
          : (await api('workspaces')).workspaces.map((workspace) => workspace.id);
      $('report-subjects').replaceChildren(...values.map((value) => el('option', { value })));
    } catch {
      // Offers are a convenience: typing the key or workspace still works.
    }
  }

  /** One entry a finding links to: a button that shows the journal entry below the finding. */
  function entryLink(ref) {
    return el('button', {
      type: 'button',
      className: 'link report-entry-link',
      'data-report-entry': ref.id,
      title: `${ref.link} · answered ${ref.time}`,
      text: ref.id.slice(0, 8),
    });
  }

  function groupItem(group) {
    return el(
      'li',
      {},
      el('span', { text: group.label }),
      group.entries.length ? el('span', { className: 'report-links' }, ...group.entries.map(entryLink)) : null,
    );
  }

  function findingItem(finding) {
    const more = finding.moreEntries ? el('span', { className: 'sub', text: `and ${finding.moreEntries} more` }) : null;
    return el(
      'li',
      { className: 'finding', 'data-finding': finding.id, 'data-verdict': finding.verdict },
      el('div', { className: 'finding-head' }, verdictBadge(finding.verdict), el('strong', { text: finding.title })),
      el('p', { className: 'finding-sentence', text: finding.sentence }),
      el('p', { className: 'sub', text: finding.checks }),
      finding.groups.length ? el('ul', { className: 'finding-groups' }, ...finding.groups.map(groupItem)) : null,
      finding.entries.length
        ? el(
            'p',
            { className: 'report-links' },
            el('span', { className: 'sub', text: 'Entries:' }),
            ...finding.entries.map(entryLink),
            more,
          )
        : null,
      el('div', { className: 'report-entry', hidden: true }),
    );
  }

  function trafficTable(rows) {
    return el(
      'div',
      { className: 'scroll' },
      el(
        'table',
        { className: 'table report-traffic' },
        el(
          'thead',
          {},
          el('tr', {}, el('th', { text: 'Operation' }), el('th', { text: 'Status' }), el('th', { className: 'num', text: 'Requests' })),
        ),
        el(
          'tbody',
          {},
          ...rows.map((row) =>
            el(
              'tr',
              {},
              el('td', { className: 'operation', text: row.operationId || `${row.method} ${row.path}` }),
              el('td', {}, el('span', { className: `status s${String(row.status).charAt(0)}`, text: row.status })),
              el('td', { className: 'num', text: row.count }),
            ),
          ),
        ),
      ),
    );
  }

  function render(report) {
    const box = $('report');
    box.replaceChildren(
      el(
        'div',
        { className: 'report-verdict', 'data-verdict': report.verdict },
        verdictBadge(report.verdict),
        el('p', { text: report.summary }),
      ),
      el('p', { className: 'note', id: 'report-coverage', text: report.coverage.sentence }),
      report.requests.byOperation.length ? trafficTable(report.requests.byOperation) : null,
      el('ul', { className: 'findings' }, ...report.findings.map(findingItem)),
    );
    box.hidden = false;
  }

  async function run(event) {
    event.preventDefault();
    const button = $('report-run');
    const params = new URLSearchParams({ [$('report-kind').value]: $('report-subject').value.trim() });
    for (const end of ['from', 'to']) {
      const value = $(`report-${end}`).value.trim();
      if (value) params.set(end, value);
    }
    button.disabled = true;
    try {
      render(await api(`report?${params}`));
      show('report-error', '');
    } catch (error) {
      if (error instanceof SignedOut) return;
      $('report').hidden = true;
      showError('report-error', error);
    } finally {
      button.disabled = false;
    }
  }

  /** Shows (or hides again) the journal entry a finding links to, below that finding. */
  async function toggleEntry(button) {
    const id = button.dataset.reportEntry;
    const box = button.closest('.finding').querySelector('.report-entry');
    if (!box.hidden && box.dataset.entryId === id) {
      box.hidden = true;
      return;
    }
    box.dataset.entryId = id;
    try {
      box.replaceChildren(...entryDetail(await api(`requests/${encodeURIComponent(id)}`)));
    } catch (error) {
      if (error instanceof SignedOut) return;
      box.replaceChildren(el('p', { className: 'error', text: error.message }));
    }
    box.hidden = false;
  }

  $('report-form').addEventListener('submit', run);
  $('report-subject').addEventListener('focus', offerSubjects);
  $('report-kind').addEventListener('change', () => {
    $('report-subject').value = '';
    void offerSubjects();
  });
  $('report').addEventListener('click', (event) => {
    const button = event.target instanceof window.Element ? event.target.closest('[data-report-entry]') : null;
    if (button) void toggleEntry(button);
  });
})();

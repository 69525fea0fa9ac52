// The docs page: Swagger UI on the sandbox's live document, its try-it calls authorised with a key
// of this visitor's own (its own rate limits and its own workspace of data), kept in this browser.
/* global SwaggerUIBundle */
'use strict';

const STORE = 'understudy.visitorKey';
const bar = document.getElementById('sandbox-visitor');
const newKey = document.getElementById('sandbox-new-key');

const held = () => {
  try {
    return localStorage.getItem(STORE);
  } catch {
    return null;
  }
};
const keep = (key) => {
  try {
    if (key === null) localStorage.removeItem(STORE);
    else localStorage.setItem(STORE, key);
  } catch {
    // Storage refused (a private window): the key lasts as long as the page.
  }
};

/** This visitor's key: the one it holds while that still works, else a new one in a new workspace. */
async function visitorKey(fresh) {
  const previous = fresh ? null : held();
  const res = await fetch(new URL('visitor', document.baseURI), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(previous === null ? {} : { key: previous }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.message || `HTTP ${res.status}`);
  if (body.key) keep(body.key);
  return body;
}

function show(visitor) {
  bar.textContent = '';
  if (!visitor.key) {
    bar.append('Use “Authorize” with your API key to try the operations.');
    return;
  }
  const code = document.createElement('code');
  code.textContent = visitor.key;
  bar.append(
    'Try-it calls use your key ',
    code,
    ` (plan ${visitor.plan}, workspace ${visitor.workspace}): its limits and data are yours alone.`,
  );
  newKey.hidden = false;
}

/** Authorises every security scheme of the document with the key, the way that scheme carries it. */
function authorize(ui, visitor) {
  if (!visitor.key) return;
  const schemes = ui.specSelectors.specJson().getIn(['components', 'securitySchemes']);
  for (const { scheme, use } of visitor.authorizations) {
    if (use === 'value') ui.preauthorizeApiKey(scheme, visitor.key);
    else if (use === 'basic') ui.preauthorizeBasic(scheme, visitor.key, '');
    else {
      const schema = schemes && schemes.get(scheme);
      if (!schema) continue;
      ui.authActions.authorizeOauth2({
        auth: { name: scheme, schema: schema.toJS() },
        token: { access_token: visitor.key, token_type: 'Bearer' },
      });
    }
  }
}

const ready = {};
ready.ui = new Promise((resolve) => {
  const ui = SwaggerUIBundle({
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    // Nothing leaves the sandbox: no validator badge.
    validatorUrl: null,
    onComplete: () => {
      const title = ui.specSelectors.info().get('title');
      if (title) document.title = `${title} · sandbox`;
      resolve(ui);
    },
  });
});
ready.visitor = visitorKey(false);

Promise.all([ready.ui, ready.visitor]).then(
  ([ui, visitor]) => {
    show(visitor);
    authorize(ui, visitor);
    newKey.addEventListener('click', () => {
      newKey.disabled = true;
      visitorKey(true)
        .then((next) => {
          show(next);
          authorize(ui, next);
        })
        .catch((error) => (bar.textContent = `No new key: ${error.message}`))
        .finally(() => (newKey.disabled = false));
    });
  },
  (error) => {
    bar.textContent = `No key for you: ${error.message}. Use “Authorize” with a key of your own.`;
  },
);

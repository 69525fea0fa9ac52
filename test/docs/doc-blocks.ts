/**
 * The fenced blocks of a Markdown page and what the doc tests do with each (commands.test.ts):
 * a block whose info string is `sh` is run; any other is not. An HTML comment on the line just
 * before a block's opening fence says otherwise:
 *
 *   <!-- doc-test: skip: REASON -->       not run, for the reason given (a reason is required);
 *   <!-- doc-test: server -->             an sh block that starts a sandbox in the foreground: run in
 *                                         the background, waited for, and serving the page's next blocks;
 *   <!-- doc-test: background PORT -->    an sh block that serves something else in the foreground
 *                                         (a webhook receiver, "in another terminal"): started in the
 *                                         background for the rest of the page, waited for until PORT
 *                                         takes TCP connections, and stopped with its process group
 *                                         when the page ends. PORT is moved to a free port, so that
 *                                         pages run side by side never meet on it: `localhost:PORT` and
 *                                         `127.0.0.1:PORT` in every block of the page, and PORT wherever
 *                                         it stands as a word in the block itself (`--port 4000`),
 *                                         which must name it;
 *   <!-- doc-test: file NAME -->          a block of content (yaml, json, …) written to NAME, relative
 *                                         to the page's working directory, for the next blocks to use.
 *
 * Pure: text in, blocks and errors out. A page whose comments break these rules has errors, and
 * the doc tests fail on them, so that a misspelt directive never silently runs or skips a block.
 */

export type Directive =
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'server' }
  | { readonly kind: 'background'; readonly port: number }
  | { readonly kind: 'file'; readonly name: string };

export interface DocBlock {
  /** The line of the opening fence, from 1. */
  readonly line: number;
  /** The info string's first word (`sh` in "```sh title"), or '' when there is none. */
  readonly lang: string;
  /** The lines between the fences, without the fence's own indentation, each ending in a newline. */
  readonly content: string;
  readonly directive?: Directive;
}

export interface DocPage {
  readonly blocks: readonly DocBlock[];
  /** What breaks the convention, each as `line N: what`. */
  readonly errors: readonly string[];
}

/** What the doc tests do, in the page's order. */
export type Step =
  | { readonly kind: 'run'; readonly line: number; readonly script: string }
  | { readonly kind: 'server'; readonly line: number; readonly script: string }
  | { readonly kind: 'background'; readonly line: number; readonly port: number; readonly script: string }
  | { readonly kind: 'file'; readonly line: number; readonly name: string; readonly content: string };

/** A fence's opening or closing line: up to any indentation (a fence in a list item is indented), three or more ` or ~. */
const FENCE = /^( *)(`{3,}|~{3,})(.*)$/;
/** A directive: the whole line is the comment. */
const DIRECTIVE = /^\s*<!--\s*doc-test:(.*?)-->\s*$/;
/** Anything that looks like one, to catch those DIRECTIVE does not take (no colon, not a whole line). */
const LOOKS_LIKE_DIRECTIVE = /<!--\s*doc-test\b/;

/** The port the docs show the sandbox on. */
export const SANDBOX_PORT = 4010;

/** A port wherever it stands as a word (`--port 4000`, `.listen(4000)`), not inside a longer number. */
const portWord = (port: number, flags = ''): RegExp => new RegExp(`(?<![\\w.])${port}(?![\\w.])`, flags);

interface Open {
  readonly line: number;
  readonly indent: number;
  readonly fence: string;
  readonly lang: string;
  readonly directive: Directive | undefined;
  /** The line of the directive's comment. */
  readonly directiveLine: number;
  readonly lines: string[];
}

/** The directive in a `doc-test:` comment's text, or why it is none. */
export function parseDirective(text: string): Directive | { readonly error: string } {
  const body = text.trim();
  const skip = /^skip\b\s*(:?)(.*)$/s.exec(body);
  if (skip) {
    const reason = (skip[2] ?? '').trim();
    if (skip[1] !== ':' || reason === '') return { error: 'a skip needs a reason: <!-- doc-test: skip: REASON -->' };
    return { kind: 'skip', reason };
  }
  if (body === 'server') return { kind: 'server' };
  const background = /^background(?:\s+(.*))?$/s.exec(body);
  if (background) {
    const port = (background[1] ?? '').trim();
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)
      return { error: 'a background block needs its port: <!-- doc-test: background PORT -->' };
    if (Number(port) === SANDBOX_PORT) return { error: `${SANDBOX_PORT} is the sandbox's own port: a background block serves on another` };
    return { kind: 'background', port: Number(port) };
  }
  const file = /^file(?:\s+(.*))?$/s.exec(body);
  if (file) {
    const name = (file[1] ?? '').trim();
    if (name === '' || /\s/.test(name)) return { error: 'a file needs one name: <!-- doc-test: file NAME -->' };
    // Written relative to the page's working directory: nowhere else.
    if (name.startsWith('/') || name.split('/').includes('..'))
      return { error: `a file's name must stay in the working directory, not "${name}"` };
    return { kind: 'file', name };
  }
  return { error: `unknown directive "${body}" (skip: REASON, server, background PORT, file NAME)` };
}

/**
 * Whether a directive suits a block: `server` and `background` an sh block (a background block
 * naming its port, which is how the harness moves it), `file` any other, `skip` a block that would run.
 */
function misplaced(directive: Directive, lang: string, content: string): string | undefined {
  const runs = lang === 'sh';
  if ((directive.kind === 'server' || directive.kind === 'background') && !runs)
    return `a ${directive.kind} directive on a "${lang}" block: only sh blocks run`;
  if (directive.kind === 'background' && !portWord(directive.port).test(content))
    return `the background block does not name its port ${directive.port} (\`--port ${directive.port}\`): the harness could not move it to a free one`;
  if (directive.kind === 'file' && runs) return 'a file directive on an sh block: it is for content (yaml, json, …), an sh block runs';
  if (directive.kind === 'skip' && !runs) return `a skip on a "${lang}" block, which does not run anyway (only sh blocks run)`;
  return undefined;
}

/** The blocks of a Markdown page, and the page's breaches of the convention. */
export function parseDoc(markdown: string): DocPage {
  const lines = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  const errors: string[] = [];
  let open: Open | undefined;
  let pending: { line: number; directive: Directive | undefined } | undefined;
  const backgroundPorts = new Set<number>();

  for (const [index, text] of lines.entries()) {
    const line = index + 1;
    if (open) {
      const close = FENCE.exec(text);
      const fence = close?.[2];
      if (fence && fence[0] === open.fence[0] && fence.length >= open.fence.length && close[3]?.trim() === '') {
        const content = open.lines.map((l) => `${l}\n`).join('');
        const { directive, directiveLine } = open;
        const wrong = directive && misplaced(directive, open.lang, content);
        if (wrong) errors.push(`line ${directiveLine}: ${wrong}`);
        if (directive?.kind === 'background') {
          if (backgroundPorts.has(directive.port))
            errors.push(`line ${directiveLine}: a background block before this one serves on ${directive.port}`);
          backgroundPorts.add(directive.port);
        }
        blocks.push({ line: open.line, lang: open.lang, content, ...(directive && { directive }) });
        open = undefined;
      } else {
        // CommonMark: a fence indented N spaces takes up to N spaces off each line of its content.
        open.lines.push(text.replace(new RegExp(`^ {0,${open.indent}}`), ''));
      }
      continue;
    }
    const opening = FENCE.exec(text);
    // A backtick fence's info string has no backtick (CommonMark): "```js```" is inline code, not a fence.
    if (opening?.[2] && !(opening[2][0] === '`' && opening[3]?.includes('`'))) {
      const lang = opening[3]?.trim().split(/\s+/)[0] ?? '';
      const directive = pending?.directive;
      const directiveLine = pending?.line ?? line;
      open = { line, indent: opening[1]?.length ?? 0, fence: opening[2], lang, directive, directiveLine, lines: [] };
      pending = undefined;
      continue;
    }
    if (pending) errors.push(`line ${pending.line}: a doc-test comment must be on the line just before a block's opening fence`);
    pending = undefined;
    const comment = DIRECTIVE.exec(text);
    if (comment) {
      const directive = parseDirective(comment[1] ?? '');
      if ('error' in directive) errors.push(`line ${line}: ${directive.error}`);
      pending = { line, directive: 'error' in directive ? undefined : directive };
    } else if (LOOKS_LIKE_DIRECTIVE.test(text)) {
      errors.push(`line ${line}: a doc-test comment is a whole line of its own: <!-- doc-test: DIRECTIVE -->`);
    }
  }
  if (open) errors.push(`line ${open.line}: the fence opened here is never closed`);
  if (pending) errors.push(`line ${pending.line}: a doc-test comment must be on the line just before a block's opening fence`);
  return { blocks, errors };
}

/**
 * The steps of a page: each sh block not skipped is run (a server or background block started),
 * each file block written.
 */
export function stepsOf(page: DocPage): Step[] {
  const steps: Step[] = [];
  for (const block of page.blocks) {
    const { line, directive } = block;
    if (directive?.kind === 'skip') continue;
    if (directive?.kind === 'file') steps.push({ kind: 'file', line, name: directive.name, content: block.content });
    else if (directive?.kind === 'background') steps.push({ kind: 'background', line, port: directive.port, script: block.content });
    else if (block.lang === 'sh') steps.push({ kind: directive?.kind === 'server' ? 'server' : 'run', line, script: block.content });
  }
  return steps;
}

/** The ports a page's background blocks serve on, as documented. */
export const backgroundPorts = (steps: readonly Step[]): number[] =>
  steps.flatMap((step) => (step.kind === 'background' ? [step.port] : []));

/**
 * The documented address (`localhost:4010`, `127.0.0.1:4010`) made the real one: the sandbox's, or
 * with `documented` a background block's.
 */
export const withPort = (text: string, port: number, documented = SANDBOX_PORT): string =>
  text.replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${documented}\\b`, 'g'), `$1:${port}`);

/** A background block's documented port, wherever it stands as a word in the block, made the real one. */
export const withPortWord = (text: string, port: number, documented: number): string =>
  text.replace(portWord(documented, 'g'), String(port));

/**
 * The fenced blocks of a Markdown page and what the doc tests do with each (commands.test.ts):
 * a block whose info string is `sh` is run; any other is not. An HTML comment on the line just
 * before a block's opening fence says otherwise:
 *
 *   <!-- doc-test: skip: REASON -->   not run, for the reason given (a reason is required);
 *   <!-- doc-test: server -->         an sh block that starts a sandbox in the foreground: run in
 *                                     the background, waited for, and serving the page's next blocks;
 *   <!-- doc-test: file NAME -->      a block of content (yaml, json, …) written to NAME, relative
 *                                     to the page's working directory, for the next blocks to use.
 *
 * Pure: text in, blocks and errors out. A page whose comments break these rules has errors, and
 * the doc tests fail on them, so that a misspelt directive never silently runs or skips a block.
 */

export type Directive =
  { readonly kind: 'skip'; readonly reason: string } | { readonly kind: 'server' } | { readonly kind: 'file'; readonly name: string };

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
  | { readonly kind: 'file'; readonly line: number; readonly name: string; readonly content: string };

/** A fence's opening or closing line: up to any indentation (a fence in a list item is indented), three or more ` or ~. */
const FENCE = /^( *)(`{3,}|~{3,})(.*)$/;
/** A directive: the whole line is the comment. */
const DIRECTIVE = /^\s*<!--\s*doc-test:(.*?)-->\s*$/;
/** Anything that looks like one, to catch those DIRECTIVE does not take (no colon, not a whole line). */
const LOOKS_LIKE_DIRECTIVE = /<!--\s*doc-test\b/;

interface Open {
  readonly line: number;
  readonly indent: number;
  readonly fence: string;
  readonly lang: string;
  readonly directive: Directive | undefined;
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
  const file = /^file(?:\s+(.*))?$/s.exec(body);
  if (file) {
    const name = (file[1] ?? '').trim();
    if (name === '' || /\s/.test(name)) return { error: 'a file needs one name: <!-- doc-test: file NAME -->' };
    // Written relative to the page's working directory: nowhere else.
    if (name.startsWith('/') || name.split('/').includes('..'))
      return { error: `a file's name must stay in the working directory, not "${name}"` };
    return { kind: 'file', name };
  }
  return { error: `unknown directive "${body}" (skip: REASON, server, file NAME)` };
}

/** Whether a directive suits a block: `server` an sh block, `file` any other, `skip` a block that would run. */
function misplaced(directive: Directive, lang: string): string | undefined {
  const runs = lang === 'sh';
  if (directive.kind === 'server' && !runs) return `a server directive on a "${lang}" block: only sh blocks run`;
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

  for (const [index, text] of lines.entries()) {
    const line = index + 1;
    if (open) {
      const close = FENCE.exec(text);
      const fence = close?.[2];
      if (fence && fence[0] === open.fence[0] && fence.length >= open.fence.length && close[3]?.trim() === '') {
        blocks.push({
          line: open.line,
          lang: open.lang,
          content: open.lines.map((l) => `${l}\n`).join(''),
          ...(open.directive && { directive: open.directive }),
        });
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
      if (directive) {
        const wrong = misplaced(directive, lang);
        if (wrong) errors.push(`line ${pending?.line}: ${wrong}`);
      }
      open = { line, indent: opening[1]?.length ?? 0, fence: opening[2], lang, directive, lines: [] };
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

/** The steps of a page: each sh block not skipped is run (a server block started), each file block written. */
export function stepsOf(page: DocPage): Step[] {
  const steps: Step[] = [];
  for (const block of page.blocks) {
    const { line, directive } = block;
    if (directive?.kind === 'skip') continue;
    if (directive?.kind === 'file') steps.push({ kind: 'file', line, name: directive.name, content: block.content });
    else if (block.lang === 'sh') steps.push({ kind: directive?.kind === 'server' ? 'server' : 'run', line, script: block.content });
  }
  return steps;
}

/** The documented address (localhost:4010, 127.0.0.1:4010) made the sandbox's real one. */
export const withPort = (text: string, port: number): string => text.replace(/\b(localhost|127\.0\.0\.1):4010\b/g, `$1:${port}`);

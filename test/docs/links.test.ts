import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link and `#anchor` in README.md and docs/ resolves: the file exists, and the
 * anchor names a heading of that file as GitHub renders it. Links to other sites are not followed.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every Markdown file under docs/. */
function pages(): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found;
}

/** The text outside fenced blocks. */
function unfenced(markdown: string): string {
  return markdown.replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '');
}

/** The text outside fenced blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return unfenced(markdown).replace(/(`+)[^`\n]*?\1/g, '');
}

/** Every link target: Markdown links and images, and the `href` and `src` of inline HTML. */
function targets(markdown: string): string[] {
  const text = prose(markdown);
  const found: string[] = [];
  for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push(match[1] ?? '');
  for (const match of text.matchAll(/\b(?:href|src)="([^"]+)"/g)) found.push(match[1] ?? '');
  return found;
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of unfenced(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = (match[1] ?? '')
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

describe('the documentation links', () => {
  it('finds the pages it checks', () => {
    expect(pages()).toEqual(
      expect.arrayContaining(['README.md', join('docs', 'configuration.md'), join('docs', 'decisions', 'README.md')]),
    );
  });

  it.each(pages())('%s: every relative link and anchor resolves', (page) => {
    const markdown = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const target of targets(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#', 2);
      const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURIComponent(path));
      if (!existsSync(file)) {
        broken.push(`${target}: no file ${relative(ROOT, file)}`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!file.endsWith('.md')) {
        broken.push(`${target}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!anchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, file)}`);
    }
    expect(broken).toEqual([]);
  });
});

/**
 * The README is a front door (at most 20,000 bytes) that links every page of
 * docs/, and every relative link of the README and docs/ leads to a file that
 * exists and, with `#anchor`, to a heading of that file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = join(ROOT, 'docs');

/** Generated, not checked in: the API reference (`npm run docs`, TypeDoc). */
const GENERATED = /^docs\/api\//;

const pages = [
  'README.md',
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown page's headings (fenced code left out). */
export function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (m) out.add(slug(m[1]!));
  }
  return out;
}

/** Relative link targets of a page, outside fenced code: `[text](target)`. */
export function links(text: string): string[] {
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe('documentation', () => {
  it('the README is at most 20,000 bytes', () => {
    expect(readFileSync(join(ROOT, 'README.md')).length).toBeLessThanOrEqual(20_000);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((t) => t.split('#')[0]));
    const want = pages.filter((p) => p !== 'README.md');
    expect(want.filter((p) => !linked.has(p))).toEqual([]);
  });

  it('every relative link leads to a file and a heading that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(readFileSync(join(ROOT, page), 'utf8'))) {
        const [path, hash] = target.split('#') as [string, string | undefined];
        const file = path ? relative(ROOT, resolve(dirname(join(ROOT, page)), path)) : page;
        if (GENERATED.test(file) && !existsSync(join(ROOT, file))) continue;
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no ${file})`);
        else if (hash && file.endsWith('.md') && !anchors(readFileSync(join(ROOT, file), 'utf8')).has(hash))
          broken.push(`${page}: ${target} (no heading #${hash})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds headings and links as GitHub does', () => {
    expect(slug('Resumable pagination: `--checkpoint FILE`')).toBe('resumable-pagination---checkpoint-file');
    expect(slug("The emulator's sign-in side")).toBe('the-emulators-sign-in-side');
    expect(links('see [a](docs/a.md#x) and [b](https://e.x)\n```sh\n[c](no.md)\n```\n')).toEqual(['docs/a.md#x']);
  });
});

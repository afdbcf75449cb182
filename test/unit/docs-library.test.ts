/**
 * The pages that present the library (docs/library.md, guide.md, doctor.md,
 * accounts.md) name only what the package exports: every name imported from
 * `lanyard-cli` or `lanyard-cli/emulator` is exported by that entry point,
 * every function shown called (`name()`, `name(args)`) and every class whose
 * member is named (`RateLimitError.kind`) or error class (`…Error`) by one of
 * them; and the documented values of `RateLimitError.kind` are the type's.
 * Read from the built declarations (dist/lib/*.d.ts, what consumers compile
 * against).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = ['docs/library.md', 'docs/guide.md', 'docs/doctor.md', 'docs/accounts.md'];
const ENTRIES = { 'lanyard-cli': 'dist/lib/index.d.ts', 'lanyard-cli/emulator': 'dist/lib/emulator.d.ts' } as const;
/** Named on these pages as the CLI's, not the library's (the page says so); not exported. */
const CLI_ONLY = new Set(['CliError', 'ExitStatus']);
/** Built-ins shown called: not the package's. */
const NOT_OURS = new Set(['require', 'import', 'fetch', 'setTimeout']);

/** The names a rolled-up declaration file exports. */
export function exportedNames(dts: string): Set<string> {
  const out = new Set<string>();
  for (const m of dts.matchAll(/^export (?:declare )?(?:abstract )?(?:function|class|const|let|interface|type|enum|namespace) ([A-Za-z_$][\w$]*)/gm))
    out.add(m[1]!);
  for (const m of dts.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of m[1]!.split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) out.add(name);
    }
  }
  return out;
}

/** What a page presents as the library's: imported names per entry point, and names used as the library's in prose or code. */
export function libraryNames(page: string): { imports: Array<{ from: string; name: string }>; used: string[] } {
  const imports: Array<{ from: string; name: string }> = [];
  for (const m of page.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'(lanyard-cli(?:\/emulator)?)'/g)) {
    for (const part of m[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]
        ?.trim();
      if (name && name !== '…' && name !== '...') imports.push({ from: m[2]!, name });
    }
  }
  const used = new Set<string>();
  for (const m of page.matchAll(/`([A-Za-z_$][\w$]*)\(/g)) if (!NOT_OURS.has(m[1]!)) used.add(m[1]!);
  for (const m of page.matchAll(/`([A-Z][A-Za-z]+)\.[a-z]\w*/g)) used.add(m[1]!);
  for (const m of page.matchAll(/`([A-Z][A-Za-z]*Error)`/g)) used.add(m[1]!);
  return { imports, used: [...used].filter((n) => !CLI_ONLY.has(n)) };
}

/** The values listed under "`RateLimitError.kind` says which limit:" (one `- \`value\`:` item each). */
export function documentedKinds(page: string): string[] {
  const at = page.indexOf('`RateLimitError.kind` says which limit:');
  if (at < 0) return [];
  const out: string[] = [];
  for (const line of page.slice(at).split('\n').slice(1)) {
    const m = /^ {2}- `([a-z]+)`:/.exec(line);
    if (m) out.push(m[1]!);
    else if (!/^ {4}\S/.test(line)) break;
  }
  return out;
}

describe('the library as the docs present it', () => {
  const exported = Object.fromEntries(Object.entries(ENTRIES).map(([k, f]) => [k, exportedNames(readFileSync(join(ROOT, f), 'utf8'))]));
  const all = new Set(Object.values(exported).flatMap((s) => [...s]));

  it.each(PAGES)('%s names only exported functions, classes and types', (file) => {
    const { imports, used } = libraryNames(readFileSync(join(ROOT, file), 'utf8'));
    expect(imports.filter((i) => !exported[i.from]?.has(i.name))).toEqual([]);
    expect(used.filter((n) => !all.has(n))).toEqual([]);
  });

  it("the CLI's own classes the pages name are indeed not exported (else they are the library's: drop them from CLI_ONLY)", () => {
    expect([...CLI_ONLY].filter((n) => all.has(n))).toEqual([]);
  });

  it('docs/library.md lists exactly the values of RateLimitError.kind', () => {
    const dts = readFileSync(join(ROOT, ENTRIES['lanyard-cli']), 'utf8');
    const cls = dts.slice(dts.indexOf('export declare class RateLimitError'));
    const union = /readonly kind: ([^;]+);/.exec(cls)?.[1] ?? '';
    const type = [...union.matchAll(/'([a-z]+)'/g)].map((m) => m[1]!);
    expect(type.length).toBeGreaterThan(2);
    expect(documentedKinds(readFileSync(join(ROOT, 'docs/library.md'), 'utf8')).sort()).toEqual(type.sort());
  });

  it('finds what it looks for', () => {
    const page = "```js\nimport { a, type B, c as d, … } from 'lanyard-cli';\n```\nCall `run(x)` and `require()`; `HttpError.status`, `OAuthError`.";
    expect(libraryNames(page)).toEqual({
      imports: [
        { from: 'lanyard-cli', name: 'a' },
        { from: 'lanyard-cli', name: 'B' },
        { from: 'lanyard-cli', name: 'c' },
      ],
      used: ['run', 'HttpError', 'OAuthError'],
    });
    expect(exportedNames('export declare function f(): void;\nexport declare class K {}\nexport { x, y as z }\n')).toEqual(new Set(['f', 'K', 'x', 'z']));
  });
});

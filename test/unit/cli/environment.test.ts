/**
 * The environment variables the code reads are the ones `lanyard --help` (and
 * so docs/commands.md) lists: src/cli/environment.ts. A variable read under
 * src/ or bin/ and missing from the list fails, and so does a listed one that
 * nothing reads.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, environmentHelp, SYSTEM_ENVIRONMENT } from '../../../src/cli/environment.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|js|cjs|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/**
 * Names read as `env.NAME`, `env?.NAME` or `env['NAME']` (ctx.env, process.env,
 * an env parameter), or named by a constant read as `env[X_ENV]` (`X_ENV = 'NAME'`).
 */
export function readVariables(text: string): string[] {
  const re = /\benv\??\.([A-Z][A-Z0-9_]+)|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]|\b[A-Z][A-Z0-9_]*_ENV\s*=\s*['"]([A-Z][A-Z0-9_]+)['"]/g;
  return [...text.matchAll(re)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** The names of a list entry: `LANYARD_PAGER, PAGER` → both; `LANYARD_KEYCHAIN=off` → LANYARD_KEYCHAIN. */
const listed = (entry: string) => entry.split(', ').map((n) => n.replace(/=.*$/, ''));

describe('environment variables', () => {
  const client = [join(ROOT, 'src', 'cli'), join(ROOT, 'src', 'core'), join(ROOT, 'src', 'shared'), join(ROOT, 'bin')].flatMap((d) => sources(d));
  const read = new Set(client.flatMap((f) => readVariables(readFileSync(f, 'utf8'))));

  it('finds the reads it is meant to find', () => {
    expect(readVariables("ctx.env.LANYARD_TOKEN || process.env['NO_COLOR'] || env?.CI || env.lower")).toEqual(['LANYARD_TOKEN', 'NO_COLOR', 'CI']);
    expect(readVariables("const TOKEN_ENV = 'LANYARD_X'; ctx.env[TOKEN_ENV]")).toEqual(['LANYARD_X']);
    expect(read.has('LANYARD_TOKEN')).toBe(true);
  });

  it('every variable the CLI, the library or the launcher reads is listed in src/cli/environment.ts', () => {
    const known = new Set([...ENVIRONMENT.flatMap(([e]) => listed(e)), ...SYSTEM_ENVIRONMENT]);
    expect([...read].filter((n) => !known.has(n)).sort()).toEqual([]);
  });

  it('every listed variable is read somewhere', () => {
    const all = [...ENVIRONMENT.flatMap(([e]) => listed(e)), ...SYSTEM_ENVIRONMENT];
    expect(all.filter((n) => !read.has(n))).toEqual([]);
  });

  it('the help block fits 80 columns', () => {
    for (const line of environmentHelp().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

/**
 * Unit tests stand beside what they test: a file under test/unit/<area>/<dir>/
 * tests modules of src/<area>/, found under a folder named <dir> (at any
 * depth: test/unit/cli/mailbox/ holds tests of src/cli/commands/mailbox/).
 * A core test imports nothing of the CLI or the emulator; an emulator test
 * nothing of the client. Tests that import no module (checks of the source
 * tree) stand anywhere; an emulator test that drives a service through the
 * whole emulator (src/emulator/server.ts) stands in that service's folder.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const UNIT = join(ROOT, 'test', 'unit');

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) testFiles(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The src/ modules a test file imports (relative specifiers), as paths relative to src/. */
function sourceImports(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(/\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const rel = relative(join(ROOT, 'src'), resolve(dirname(file), m[1]!));
    if (!rel.startsWith('..')) out.push(rel.split(sep).join('/'));
  }
  return out;
}

/** Areas a test of each area must not import. */
const FORBIDDEN: Record<string, string[]> = { core: ['cli', 'emulator'], emulator: ['core', 'cli'], cli: [] };

describe('unit test layout', () => {
  const misplaced: string[] = [];
  for (const file of testFiles(UNIT)) {
    const [area, ...dirs] = relative(UNIT, dirname(file)).split(sep);
    if (!area || !(area in FORBIDDEN)) continue;
    const imports = sourceImports(file);
    if (!imports.length) continue;
    const name = relative(ROOT, file);
    const own = imports.filter((p) => p.startsWith(`${area}/`));
    if (!own.length) misplaced.push(`${name}: imports nothing from src/${area}/`);
    for (const p of imports) if (FORBIDDEN[area]!.some((a) => p.startsWith(`${a}/`))) misplaced.push(`${name}: a ${area} test imports src/${p}`);
    const sub = dirs.join('/');
    const throughEmulator = area === 'emulator' && own.includes('emulator/server.js');
    if (sub && !throughEmulator && !own.some((p) => `/${dirname(p)}/`.includes(`/${sub}/`)))
      misplaced.push(`${name}: none of its modules is under a folder ${sub}/ of src/${area}/`);
  }

  it('every unit test stands in the folder of the modules it tests', () => {
    expect(misplaced).toEqual([]);
  });
});

/**
 * Issue #30: a function a reader takes in at once. The body of every
 * function (declarations, methods, arrows, accessors) in the folders below is
 * at most MAX_LINES lines, measured with the TypeScript compiler's own parse
 * from the line of its opening brace to the line of its closing one (in
 * TypeScript files and the tools' .mjs/.cjs scripts). A folder joins the list
 * once its functions are short.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAX_LINES = 60;
const FOLDERS = ['src/cli', 'src/core', 'src/emulator', 'src/shared', 'src/tools'];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(m?ts|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** `path:line name (n lines)` of every function whose body is longer than `max` lines. */
export function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.body.getStart(sf)).line;
      const lines = sf.getLineAndCharacterOfPosition(n.body.getEnd()).line - first + 1;
      if (lines > max) {
        const named = ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent) ? n.parent.name : n.name;
        found.push(`${relative(ROOT, file)}:${first + 1} ${named?.getText(sf) ?? '<anonymous>'} (${lines} lines)`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('function length', () => {
  it('measures a body from its opening to its closing brace', () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `function fits() {\n${body(MAX_LINES)}\n}\nconst tooLong = () => {\n${body(MAX_LINES + 1)}\n};\nclass C {\n  m() {\n${body(MAX_LINES + 1)}\n  }\n}\n`;
    expect(longFunctions(join(ROOT, 'x.ts'), text).map((s) => s.replace(/ \(.*/, ''))).toEqual(['x.ts:61 tooLong', 'x.ts:123 m']);
  });

  for (const folder of FOLDERS) {
    it(`every function in ${folder} is at most ${MAX_LINES} lines`, () => {
      const long = sources(join(ROOT, folder)).flatMap((f) => longFunctions(f, readFileSync(f, 'utf8')));
      expect(long).toEqual([]);
    });
  }
});

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDir, makeDirProblem } from '../../../src/shared/make-dir.js';

const root = mkdtempSync(join(tmpdir(), 'lanyard-make-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const problem = (f: () => void): string => {
  try {
    f();
  } catch (err) {
    return makeDirProblem(err);
  }
  return 'made';
};

describe('makeDir (mkdir -p that always returns)', () => {
  it('makes every missing level with the mode; a directory already there is fine', () => {
    const deep = join(root, 'a', 'b', 'c');
    makeDir(deep, 0o700);
    for (const d of [join(root, 'a'), join(root, 'a', 'b'), deep]) expect(statSync(d).mode & 0o777).toBe(0o700);
    makeDir(deep, 0o700);
    makeDir(`${deep}/`, 0o700);
  });

  it('a file in the way, at the end or among the parents, is the error', () => {
    writeFileSync(join(root, 'file'), 'x');
    expect(problem(() => makeDir(join(root, 'file')))).toBe('a file is in the way');
    expect(problem(() => makeDir(join(root, 'file', 'sub', 'dir')))).toBe('a file is in the way');
  });

  it.runIf(process.platform === 'linux')('under /proc (mkdir answers ENOENT below a directory that exists): the error, once', () => {
    expect(problem(() => makeDir('/proc/lanyard-no-such-entry'))).toBe('no directory can be made there');
    expect(problem(() => makeDir('/proc/lanyard-no-such-entry/a/b'))).toBe('no directory can be made there');
  });
});

/** The pager's command: which variable wins, and how its text is split into words (as a POSIX shell would). */
import { describe, expect, it, vi } from 'vitest';
import { exitQuietly, pagerCommand, shellWords } from '../../../src/cli/output/pager.js';

describe('shellWords', () => {
  it.each([
    ['less -FRX', ['less', '-FRX']],
    ['  less   -R  ', ['less', '-R']],
    ["'/opt/my pager' --flag", ['/opt/my pager', '--flag']],
    ['"/opt/my pager" "a \\"b\\" \\$c \\d"', ['/opt/my pager', 'a "b" $c \\d']],
    ['my\\ pager x\\\\y', ['my pager', 'x\\y']],
    ['a\'b\'"c"d', ['abcd']],
    ["''", ['']],
    ['', []],
  ])('%j', (text, words) => expect(shellWords(text)).toEqual(words));

  it('an unterminated quote is a usage error', () => {
    expect(() => shellWords("less 'oops")).toThrow(/unterminated quote/);
    expect(() => shellWords('less "oops')).toThrow(/unterminated quote/);
  });
});

describe('pagerCommand', () => {
  const less = () => true;
  const noLess = () => false;
  it('LANYARD_PAGER, then the setting, then PAGER, then less -FRX when less is on PATH', () => {
    expect(pagerCommand({ LANYARD_PAGER: 'a', PAGER: 'c' }, 'b', less)).toEqual(['a']);
    expect(pagerCommand({ PAGER: 'c' }, 'b', less)).toEqual(['b']);
    expect(pagerCommand({ PAGER: 'c -x' }, undefined, less)).toEqual(['c', '-x']);
    expect(pagerCommand({}, undefined, less)).toEqual(['less', '-FRX']);
    expect(pagerCommand({}, undefined, noLess)).toBeUndefined();
  });

  it('an empty value or cat: no pager, and the later ones are not looked at', () => {
    expect(pagerCommand({ LANYARD_PAGER: '', PAGER: 'c' }, 'b', less)).toBeUndefined();
    expect(pagerCommand({ LANYARD_PAGER: 'cat' }, undefined, less)).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat' }, undefined, less)).toBeUndefined();
    expect(pagerCommand({ PAGER: '  ' }, undefined, less)).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat -A' }, undefined, less)).toEqual(['cat', '-A']);
  });
});

describe('exitQuietly (a reader of stdout that went away, or a pager left with q)', () => {
  const exits = (f: () => void): number | undefined => {
    const spy = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      throw Object.assign(new Error('exit'), { exitCode: code });
    }) as typeof process.exit);
    const before = process.exitCode;
    // As in a command's process before main knows its status (an earlier test in this worker may have set one).
    process.exitCode = undefined;
    try {
      f();
    } catch (err) {
      return (err as { exitCode?: number }).exitCode;
    } finally {
      spy.mockRestore();
      process.exitCode = before;
    }
    return undefined;
  };

  it('a command still running ends with the status it decided before writing (a failed gate), else 0', () => {
    expect(exits(() => exitQuietly(5))).toBe(5);
    expect(exits(() => exitQuietly(3))).toBe(3);
    expect(exits(() => exitQuietly())).toBe(0);
    expect(exits(() => exitQuietly(undefined))).toBe(0);
  });

  it("once main knows the command's status (process.exitCode), that one", () => {
    expect(
      exits(() => {
        process.exitCode = 1;
        exitQuietly(5);
      }),
    ).toBe(1);
    expect(
      exits(() => {
        process.exitCode = 0;
        exitQuietly();
      }),
    ).toBe(0);
  });
});

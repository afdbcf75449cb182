/** The pager's command: which variable wins, and how its text is split into words (as a POSIX shell would). */
import { describe, expect, it } from 'vitest';
import { pagerCommand, shellWords } from '../../../src/cli/output/pager.js';

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

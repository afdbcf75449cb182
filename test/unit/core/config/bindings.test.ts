/** Directory bindings: the longest bound directory holding the (real) working directory wins; --profile and LANYARD_PROFILE win over it. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boundAccount, editBinding, holds, matchBinding, parseBindings, realDir, selectProfile } from '../../../../src/core/config/bindings.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'lanyard-bindings-')));
const work = join(root, 'work');
const deep = join(work, 'acme', 'repo', 'src');
mkdirSync(deep, { recursive: true });
mkdirSync(join(root, 'workshop'));
symlinkSync(work, join(root, 'link'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bindings = [
  { dir: work, profile: 'work' },
  { dir: join(work, 'acme'), profile: 'acme', accounts: { 'api.example.com': 'mona-acme' } },
];

describe('matching', () => {
  it('whole path segments only', () => {
    expect(holds(work, deep)).toBe(true);
    expect(holds(work, work)).toBe(true);
    expect(holds(work, join(root, 'workshop'))).toBe(false);
  });

  it('the longest bound directory wins; elsewhere none', () => {
    expect(matchBinding(bindings, deep, (b) => !!b.profile)?.profile).toBe('acme');
    expect(matchBinding(bindings, work, (b) => !!b.profile)?.profile).toBe('work');
    expect(matchBinding(bindings, join(root, 'workshop'), (b) => !!b.profile)).toBeUndefined();
  });

  it('the working directory is resolved through symlinks', () => {
    expect(matchBinding(bindings, join(root, 'link', 'acme', 'repo'), (b) => !!b.profile)?.profile).toBe('acme');
  });

  it('a binding made through a symlink is stored as the real directory', () => {
    expect(realDir('link/acme', root)).toBe(join(work, 'acme'));
    expect(() => realDir(join(root, 'nowhere'), root)).toThrow(/no such directory/);
    expect(realDir(join(root, 'nowhere'), root, { gone: true })).toBe(join(root, 'nowhere'));
  });

  it('accounts are bound per host', () => {
    expect(boundAccount(bindings, 'api.example.com', deep)).toEqual({ login: 'mona-acme', dir: join(work, 'acme') });
    expect(boundAccount(bindings, 'other.example.com', deep)).toBeUndefined();
    expect(boundAccount(bindings, 'api.example.com', work)).toBeUndefined();
  });
});

describe('selectProfile', () => {
  const base = { bindings, active: 'personal', cwd: deep };
  it('--profile, then LANYARD_PROFILE, then the binding, then the active profile, then "default"', () => {
    expect(selectProfile({ ...base, flag: 'x', env: { LANYARD_PROFILE: 'y' } })).toEqual({ name: 'x', reason: { kind: 'flag' } });
    expect(selectProfile({ ...base, env: { LANYARD_PROFILE: 'y' } })).toEqual({ name: 'y', reason: { kind: 'env', variable: 'LANYARD_PROFILE' } });
    expect(selectProfile({ ...base, env: {} })).toEqual({ name: 'acme', reason: { kind: 'binding', dir: join(work, 'acme') } });
    expect(selectProfile({ ...base, env: {}, cwd: root })).toEqual({ name: 'personal', reason: { kind: 'active' } });
    expect(selectProfile({ ...base, env: {}, cwd: root, active: undefined })).toEqual({ name: 'default', reason: { kind: 'default' } });
  });
});

describe('editing', () => {
  it('adds, changes and removes entries; an emptied entry goes', () => {
    let b = editBinding([], work, (x) => ({ ...x, profile: 'work' }));
    b = editBinding(b, work, (x) => ({ ...x, accounts: { ...x.accounts, h: 'mona' } }));
    expect(b).toEqual([{ dir: work, profile: 'work', accounts: { h: 'mona' } }]);
    b = editBinding(b, work, (x) => ({ ...x, profile: undefined }));
    expect(b).toEqual([{ dir: work, accounts: { h: 'mona' } }]);
    b = editBinding(b, work, (x) => ({ ...x, accounts: {} }));
    expect(b).toEqual([]);
  });

  it('malformed entries of the config file are dropped', () => {
    expect(parseBindings([{ dir: 'relative', profile: 'x' }, { dir: work, profile: 3, accounts: { h: 'mona', g: '' } }, null, 'x'])).toEqual([
      { dir: work, accounts: { h: 'mona' } },
    ]);
    expect(parseBindings({})).toEqual([]);
  });
});

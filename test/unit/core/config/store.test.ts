import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigReader, ConfigStore, configFilePath } from '../../../../src/core/config/store.js';
import { normaliseSetting, requireSetting } from '../../../../src/core/config/settings.js';
import { ConfigError } from '../../../../src/core/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ConfigStore', () => {
  it('directory bindings: a profile and accounts per host; unbinding; removing a profile or signing out removes its bindings', async () => {
    const s = await ConfigStore.open({ dir });
    await s.set('work', 'mailbox.user', 'alice');
    await expect(s.bindProfile('/src/work', 'ghost')).rejects.toThrow(/no profile named "ghost"/);
    await s.bindProfile('/src/work', 'work');
    await s.bindAccount('/src/work', 'api.example.com', 'mona');
    await s.bindAccount('/src/home', 'api.example.com', 'mona');
    await s.bindAccount('/src/home', 'other.example.com', 'hubot');
    const r = ConfigReader.at({ dir });
    expect(r.bindings()).toEqual([
      { dir: '/src/work', profile: 'work', accounts: { 'api.example.com': 'mona' } },
      { dir: '/src/home', accounts: { 'api.example.com': 'mona', 'other.example.com': 'hubot' } },
    ]);
    expect(await s.unbindProfile('/src/work', 'other')).toBeUndefined();
    expect(await s.unbindAccount('api.example.com', { login: 'MONA' })).toEqual(['/src/work', '/src/home']);
    expect(r.bindings()).toEqual([
      { dir: '/src/work', profile: 'work' },
      { dir: '/src/home', accounts: { 'other.example.com': 'hubot' } },
    ]);
    expect(await s.remove('work')).toBe(true);
    expect(r.bindings()).toEqual([{ dir: '/src/home', accounts: { 'other.example.com': 'hubot' } }]);
    expect(await s.unbindAccount('other.example.com', { dir: '/src/home' })).toEqual(['/src/home']);
    expect(JSON.parse(await readFile(s.path, 'utf8')).bindings).toBeUndefined();
  });
  it('sets, reads back across opens, unsets, selects and removes profiles', async () => {
    const a = await ConfigStore.open({ dir });
    expect(await a.set('work', 'hosting.apiUrl', 'https://code.example.com/api/v3/')).toBe('https://code.example.com/api/v3');
    await a.set('work', 'mailbox.user', ' alice ');
    await a.use('work');
    const b = await ConfigStore.open({ dir });
    expect(b.activeProfile).toBe('work');
    expect(b.profile('work')).toEqual({ 'hosting.apiUrl': 'https://code.example.com/api/v3', 'mailbox.user': 'alice' });
    expect(await b.unset('work', 'mailbox.user')).toBe(true);
    expect(await b.unset('work', 'mailbox.user')).toBe(false);
    expect(await b.remove('work')).toBe(true);
    expect(b.activeProfile).toBeUndefined();
    expect(await b.remove('work')).toBe(false);
    expect(JSON.parse(await readFile(b.path, 'utf8'))).toEqual({ profiles: {} });
  });
  it('refuses unknown keys, bad URLs, bad profile names and using a missing profile', async () => {
    const s = await ConfigStore.open({ dir });
    await expect(s.set('p', 'hosting.token', 'x')).rejects.toThrow(ConfigError);
    await expect(s.set('p', 'hosting.apiUrl', 'not a url')).rejects.toThrow(/absolute http\(s\) URL/);
    await expect(s.set('p', 'hosting.apiUrl', 'ftp://h')).rejects.toThrow(/http\(s\)/);
    await expect(s.set('../evil', 'mailbox.user', 'x')).rejects.toThrow(/invalid profile name/);
    await expect(s.use('nope')).rejects.toThrow(/no profile named "nope"/);
    expect(() => normaliseSetting('mailbox.user', '  ')).toThrow(/must not be empty/);
  });
  it('a missing setting names the setting and the profile (the CLI turns that into the config set to run)', () => {
    try {
      requireSetting({}, 'hosting.apiUrl', 'work');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toBe('profile "work" has no hosting.apiUrl');
      expect((err as ConfigError).remedy).toEqual({ kind: 'set-setting', setting: 'hosting.apiUrl', example: '<url>', profile: 'work' });
      expect((err as ConfigError).hint).toBeUndefined();
    }
  });
});

describe('ConfigReader (the plain-JSON read path, without conf)', () => {
  it('uses the same file as the store and reads what the store wrote', async () => {
    const store = await ConfigStore.open({ dir });
    await store.set('work', 'hosting.apiUrl', 'https://code.example.com/api/v3');
    await store.use('work');
    const reader = ConfigReader.at({ dir });
    expect(reader.path).toBe(store.path);
    expect(reader.path).toBe(configFilePath({ dir }));
    expect(reader.activeProfile).toBe('work');
    expect(reader.profile('work')).toEqual({ 'hosting.apiUrl': 'https://code.example.com/api/v3' });
    expect(reader.profile('constructor')).toBeUndefined();
    await store.set('work', 'mailbox.user', 'alice');
    expect(reader.profile('work')?.['mailbox.user']).toBe('alice');
  });
  it('reads a missing file as an empty config without creating it', async () => {
    const reader = ConfigReader.at({ dir });
    expect(reader.activeProfile).toBeUndefined();
    expect(reader.profiles()).toEqual({});
    await expect(stat(reader.path)).rejects.toThrow(/ENOENT/);
  });
  it('reports a corrupt file as a ConfigError naming it', async () => {
    const reader = ConfigReader.at({ dir });
    await writeFile(reader.path, '{"profiles": ');
    expect(() => reader.profiles()).toThrow(ConfigError);
    expect(() => reader.profiles()).toThrow(/cannot read the config file/);
    await writeFile(reader.path, '[1]');
    expect(() => reader.activeProfile).toThrow(/does not hold a JSON object/);
  });
  it('defaults to the platform config directory when no dir is given', () => {
    expect(configFilePath()).toMatch(/[\\/]lanyard[\\/](Config[\\/])?config\.json$/);
    expect(configFilePath({ dir })).toBe(join(dir, 'config.json'));
  });
});

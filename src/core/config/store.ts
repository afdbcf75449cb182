/**
 * The config file holding profiles and the active profile name. Never holds
 * a secret.
 *
 * Reading and writing are split for start-up time: every command reads its
 * profile, few write. `ConfigReader` reads the file as plain JSON (one
 * readFileSync + JSON.parse, no library); `ConfigStore` adds the writes,
 * done by conf (atomic writes, JSON), which is loaded only by the commands
 * that write (`config set/unset`, `profile use/remove`, `emulator start`).
 * Both use `configFilePath()`, the one place that decides where the file is;
 * conf is handed that directory (`cwd`), never left to compute its own.
 *
 * Every write is a read-modify-write under the config directory's
 * cross-process lock (the credential stores' `FileLock`, name `config.json`):
 * the file is re-read after the lock is taken, so two processes that set
 * different keys at once both keep theirs.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import envPaths from 'env-paths';
import { type CredentialLock, FileLock } from '../credentials/lock.js';
import { ConfigError } from '../errors.js';
import { makeDir, makeDirProblem } from '../../shared/make-dir.js';
import { type DirBinding, editBinding, parseBindings } from './bindings.js';
import { assertPrivateConfigDir } from './private-dir.js';
import { normaliseSetting, type ProfileSettings, type SettingKey } from './settings.js';

interface ConfigShape {
  activeProfile?: string;
  profiles: Record<string, ProfileSettings>;
  /** Directory bindings (see bindings.ts). */
  bindings?: DirBinding[];
}

export interface ConfigStoreOptions {
  /** Directory of the config file (LANYARD_CONFIG_DIR); default: the user's config dir. */
  dir?: string;
}

/** The lock name every writer of the config file takes. */
const CONFIG_LOCK = 'config.json';

const PROJECT = 'lanyard';
const CONFIG_NAME = 'config';
const EXTENSION = 'json';

/**
 * The directory of the config file: `dir` (LANYARD_CONFIG_DIR) when given,
 * else the platform's config directory as conf would pick it
 * (env-paths('lanyard', { suffix: '' }): $XDG_CONFIG_HOME/lanyard or
 * ~/.config/lanyard on Linux, ~/Library/Preferences/lanyard on macOS,
 * %APPDATA%\lanyard\Config on Windows). The credential file lives next to it.
 */
export function configDir(options: ConfigStoreOptions = {}): string {
  return resolve(options.dir || envPaths(PROJECT, { suffix: '' }).config);
}

/** The config file's path (the same for the plain reader and for conf). */
export function configFilePath(options: ConfigStoreOptions = {}): string {
  return join(configDir(options), `${CONFIG_NAME}.${EXTENSION}`);
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new ConfigError(`invalid profile name "${name}" (letters, digits, . _ -)`);
  return name;
}

/** Read-only view of the config file; reads the file afresh on every call, as conf does. */
export class ConfigReader {
  constructor(readonly path: string) {
    assertPrivateConfigDir(dirname(path));
  }

  static at(options: ConfigStoreOptions = {}): ConfigReader {
    return new ConfigReader(configFilePath(options));
  }

  /** The file's content; a missing file is an empty config (conf's defaults). */
  protected read(): ConfigShape {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw new ConfigError(`cannot read the config file ${this.path}: ${(err as Error).message.split('\n')[0]}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`cannot read the config file: ${(err as Error).message.split('\n')[0]}`, { hint: `fix or remove ${this.path}` });
    }
    if (!data || typeof data !== 'object' || Array.isArray(data))
      throw new ConfigError(`cannot read the config file: ${this.path} does not hold a JSON object`);
    return { profiles: {}, ...(data as Partial<ConfigShape>) };
  }

  get activeProfile(): string | undefined {
    return this.read().activeProfile;
  }

  profiles(): Record<string, ProfileSettings> {
    return this.read().profiles ?? {};
  }

  profile(name: string): ProfileSettings | undefined {
    const all = this.profiles();
    return Object.hasOwn(all, name) ? all[name] : undefined;
  }

  /** The directory bindings (profiles and hosting accounts by directory). */
  bindings(): DirBinding[] {
    return parseBindings(this.read().bindings);
  }
}

/** The config file, readable and writable (conf does the writes, each under the lock). */
export class ConfigStore extends ConfigReader {
  private constructor(
    private readonly conf: import('conf').default<ConfigShape>,
    private readonly lock: CredentialLock,
  ) {
    super(conf.path);
  }

  /** Opens the file for writing; `lock` is the config directory's lock (default: a FileLock of its own). */
  static async open(options: ConfigStoreOptions = {}, lock?: CredentialLock): Promise<ConfigStore> {
    const { default: Conf } = await import('conf');
    try {
      // Private whatever the umask: the directory 0700 (the credential file lives in it), the file 0600.
      makeDir(configDir(options), 0o700);
    } catch (err) {
      throw new ConfigError(`cannot create the config directory ${configDir(options)}: ${makeDirProblem(err)}`, { cause: err });
    }
    try {
      const conf = new Conf<ConfigShape>({
        configFileMode: 0o600,
        projectName: PROJECT,
        projectSuffix: '',
        configName: CONFIG_NAME,
        fileExtension: EXTENSION,
        cwd: configDir(options),
        // No `defaults`: conf would write them from its constructor, outside the lock,
        // over a key another process has just set (the reader supplies `profiles: {}`).
        clearInvalidConfig: false,
      });
      return new ConfigStore(conf, lock ?? new FileLock(configDir(options)));
    } catch (err) {
      throw new ConfigError(`cannot read the config file: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  /**
   * Runs `f` under the lock: whatever it reads (the getters read the file
   * afresh) is what another process left, and its writes cannot be lost to
   * a concurrent writer. Not re-entrant: `f` uses the `*Unlocked` helpers.
   */
  update<T>(f: () => T): Promise<T> {
    return this.lock.withLock(CONFIG_LOCK, async () => f());
  }

  #putProfile(name: string, settings: ProfileSettings): void {
    validateProfileName(name);
    this.conf.set('profiles', { ...this.profiles(), [name]: settings });
  }

  /** Creates or replaces whole settings of a profile (used by `emulator start`). */
  async putProfile(name: string, settings: ProfileSettings): Promise<void> {
    validateProfileName(name);
    return this.update(() => this.#putProfile(name, settings));
  }

  /** Replaces a profile's settings only while `when` holds for what the file has now (under the lock); whether it did. */
  async putProfileIf(name: string, settings: ProfileSettings, when: (current: ProfileSettings | undefined) => boolean): Promise<boolean> {
    validateProfileName(name);
    return this.update(() => {
      if (!when(this.profile(name))) return false;
      this.#putProfile(name, settings);
      return true;
    });
  }

  /** Sets one key of a profile; with `activate`, also makes the profile active when none is. */
  async set(profileName: string, key: string, value: string, o: { activate?: boolean } = {}): Promise<string> {
    validateProfileName(profileName);
    const v = normaliseSetting(key, value);
    return this.update(() => {
      this.#putProfile(profileName, { ...(this.profile(profileName) ?? {}), [key as SettingKey]: v });
      if (o.activate && !this.activeProfile) this.conf.set('activeProfile', profileName);
      return v;
    });
  }

  async unset(profileName: string, key: string): Promise<boolean> {
    return this.update(() => {
      const p = { ...(this.profile(profileName) ?? {}) };
      if (!(key in p)) return false;
      delete p[key as SettingKey];
      this.#putProfile(profileName, p);
      return true;
    });
  }

  async use(name: string): Promise<void> {
    return this.update(() => {
      if (!this.profile(name)) throw new ConfigError(`no profile named "${name}"`, { remedy: { kind: 'choose-profile' } });
      this.conf.set('activeProfile', name);
    });
  }

  /** Deletes a profile, and every directory binding that names it. */
  async remove(name: string): Promise<boolean> {
    return this.update(() => {
      const all = { ...this.profiles() };
      if (!all[name]) return false;
      delete all[name];
      this.conf.set('profiles', all);
      if (this.activeProfile === name) this.conf.delete('activeProfile');
      let bindings = this.bindings();
      for (const b of bindings.filter((x) => x.profile === name)) bindings = editBinding(bindings, b.dir, (x) => ({ ...x, profile: undefined }));
      this.#putBindings(bindings);
      return true;
    });
  }

  #putBindings(bindings: DirBinding[]): void {
    if (bindings.length) this.conf.set('bindings', bindings);
    else this.conf.delete('bindings');
  }

  /** Binds profile `name` to the real directory `dir` (`profile use NAME --dir DIR`). */
  async bindProfile(dir: string, name: string): Promise<void> {
    return this.update(() => {
      if (!this.profile(name)) throw new ConfigError(`no profile named "${name}"`, { remedy: { kind: 'choose-profile' } });
      this.#putBindings(editBinding(this.bindings(), dir, (b) => ({ ...b, profile: name })));
    });
  }

  /** Removes the profile bound to `dir` (when `name` is given, only if it is that one); the profile bound before, if any. */
  async unbindProfile(dir: string, name?: string): Promise<string | undefined> {
    return this.update(() => {
      const bound = this.bindings().find((b) => b.dir === dir)?.profile;
      if (!bound || (name !== undefined && bound !== name)) return undefined;
      this.#putBindings(editBinding(this.bindings(), dir, (b) => ({ ...b, profile: undefined })));
      return bound;
    });
  }

  /** Binds the hosting account `login` of API host `host` to the real directory `dir` (`auth switch --user U --dir DIR`). */
  async bindAccount(dir: string, host: string, login: string): Promise<void> {
    return this.update(() => this.#putBindings(editBinding(this.bindings(), dir, (b) => ({ ...b, accounts: { ...b.accounts, [host]: login } }))));
  }

  /**
   * Removes account bindings of `host`: the one of `dir` (when given), else
   * every one naming `login` (a signed-out account). Returns the directories
   * unbound.
   */
  async unbindAccount(host: string, o: { dir?: string; login?: string }): Promise<string[]> {
    return this.update(() => {
      let bindings = this.bindings();
      const hit = bindings.filter(
        (b) =>
          b.accounts &&
          Object.hasOwn(b.accounts, host) &&
          (o.dir === undefined || b.dir === o.dir) &&
          (o.login === undefined || b.accounts[host]!.toLowerCase() === o.login.toLowerCase()),
      );
      for (const b of hit)
        bindings = editBinding(bindings, b.dir, (x) => {
          const accounts = { ...x.accounts };
          delete accounts[host];
          return { ...x, accounts };
        });
      if (hit.length) this.#putBindings(bindings);
      return hit.map((b) => b.dir);
    });
  }
}

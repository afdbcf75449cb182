/**
 * Where the context reads profiles from: the config file (through the
 * plain-JSON reader, no conf on the hot path, or through the writable store
 * once a command has opened it), or the profiles handed in as a port.
 */
import { dirname, resolve } from 'node:path';
import type { ConfigReader, ConfigStore } from '../../core/config/store.js';
import type { ProfileSettings } from '../../core/config/settings.js';
import { type DirBinding, type ProfileSelection, selectProfile } from '../../core/config/bindings.js';
import type { CredentialLock } from '../../core/credentials/lock.js';
import { ConfigError } from '../../core/errors.js';

/** The profiles a caller may hand in instead of the config file. */
export interface GivenProfiles {
  active?: string;
  profiles: Readonly<Record<string, ProfileSettings>>;
}

/** What the context asks about profiles and the config file. */
export interface ProfileDoors {
  /** The config file, writable (loads conf): for commands that change it. */
  config(): Promise<ConfigStore>;
  /** The config file, read-only (plain JSON: no conf, no lock): for commands that only read it (`profile list`, completion). */
  configView(): Promise<ProfileSource>;
  /** The config file's path (the credential file lives in the same directory). */
  configPath(): Promise<string>;
  /**
   * The config directory, where the lock, pacing.json and the 0600 credential
   * file live: the config file's; with profiles handed in, LANYARD_CONFIG_DIR,
   * else none (undefined): such a context writes nothing to disk.
   */
  configDir(): Promise<string | undefined>;
  /** The selected profile: --profile, LANYARD_PROFILE, the directory's binding, the active one, else "default". */
  profile(): Promise<{ name: string; settings: ProfileSettings }>;
  /** Which profile applies here and why (`profile list`, `auth status`, doctor). */
  profileSelection(): Promise<ProfileSelection>;
  /** The directory bindings of the config file. */
  bindings(): Promise<DirBinding[]>;
  /** The selected profile's name, whether or not it exists yet (config set creates it). */
  profileName(): Promise<string>;
}

export type ProfileSource = Pick<ConfigReader, 'path' | 'activeProfile' | 'profiles' | 'profile' | 'bindings'>;

export interface ProfileSourceOptions {
  env: NodeJS.ProcessEnv;
  /** --profile. */
  flag(): string | undefined;
  cwd?: string;
  given?: GivenProfiles;
  lock(): Promise<CredentialLock>;
}

export function profileDoors(o: ProfileSourceOptions): ProfileDoors {
  let configP: Promise<ConfigStore> | undefined;
  let readerP: Promise<ConfigReader> | undefined;
  const configOptions = { dir: o.env.LANYARD_CONFIG_DIR || undefined };
  const given = o.given;
  const reader = (): Promise<ProfileSource> =>
    given
      ? Promise.resolve({
          path: '(profiles handed in)',
          activeProfile: given.active,
          profiles: () => ({ ...given.profiles }),
          profile: (name: string) => given.profiles[name],
          bindings: () => [],
        })
      : (configP ?? (readerP ??= import('../../core/config/store.js').then(({ ConfigReader }) => ConfigReader.at(configOptions))));
  // Read once per run; once the writable store is open (a command that may change the profile), read afresh each time.
  let profileP: ReturnType<ProfileDoors['profile']> | undefined;
  const doors: ProfileDoors = {
    config() {
      configP ??= Promise.all([import('../../core/config/store.js'), o.lock()]).then(([{ ConfigStore }, lock]) => ConfigStore.open(configOptions, lock));
      return configP;
    },
    configView: reader,
    configPath: async () => (await reader()).path,
    configDir: async () => (given ? (o.env.LANYARD_CONFIG_DIR ? resolve(o.env.LANYARD_CONFIG_DIR) : undefined) : dirname((await reader()).path)),
    profileName: async () => (await doors.profileSelection()).name,
    bindings: async () => (await reader()).bindings(),
    async profileSelection() {
      const store = await reader();
      return selectProfile({ flag: o.flag(), env: o.env, bindings: store.bindings(), active: store.activeProfile, cwd: o.cwd });
    },
    profile: () => (configP ? readProfile() : (profileP ??= readProfile())),
  };
  async function readProfile(): ReturnType<ProfileDoors['profile']> {
    const store = await reader();
    const { name, reason } = await doors.profileSelection();
    const settings = store.profile(name);
    if (settings) return { name, settings };
    if (reason.kind === 'binding')
      throw new ConfigError(`no profile named "${name}" (bound to ${reason.dir})`, {
        hint: 'see `lanyard profile list`; `lanyard profile remove --dir DIR` removes the binding',
      });
    if (reason.kind === 'flag' || reason.kind === 'env')
      throw new ConfigError(`no profile named "${name}"`, { hint: 'see `lanyard profile list`; `lanyard emulator start` creates the "emulator" profile' });
    return { name, settings: {} };
  }
  return doors;
}

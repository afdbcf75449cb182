/**
 * The config file (conf: atomic writes, JSON) holding profiles and the active
 * profile name. Never holds a secret.
 */
import { ConfigError } from '../errors.js';
import { normaliseSetting, type ProfileSettings, type SettingKey } from './settings.js';

interface ConfigShape {
  activeProfile?: string;
  profiles: Record<string, ProfileSettings>;
}

export interface ConfigStoreOptions {
  /** Directory of the config file (LANYARD_CONFIG_DIR); default: the user's config dir. */
  dir?: string;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new ConfigError(`invalid profile name "${name}" (letters, digits, . _ -)`);
  return name;
}

export class ConfigStore {
  private constructor(private readonly conf: import('conf').default<ConfigShape>) {}

  static async open(options: ConfigStoreOptions = {}): Promise<ConfigStore> {
    const { default: Conf } = await import('conf');
    try {
      const conf = new Conf<ConfigShape>({
        projectName: 'lanyard',
        projectSuffix: '',
        configName: 'config',
        cwd: options.dir,
        defaults: { profiles: {} },
        clearInvalidConfig: false,
      });
      return new ConfigStore(conf);
    } catch (err) {
      throw new ConfigError(`cannot read the config file: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  get path(): string {
    return this.conf.path;
  }

  get activeProfile(): string | undefined {
    return this.conf.get('activeProfile');
  }

  profiles(): Record<string, ProfileSettings> {
    return this.conf.get('profiles') ?? {};
  }

  profile(name: string): ProfileSettings | undefined {
    return this.profiles()[name];
  }

  /** Creates or replaces whole settings of a profile (used by `emulator start`). */
  putProfile(name: string, settings: ProfileSettings): void {
    validateProfileName(name);
    const all = { ...this.profiles(), [name]: settings };
    this.conf.set('profiles', all);
  }

  set(profileName: string, key: string, value: string): string {
    validateProfileName(profileName);
    const v = normaliseSetting(key, value);
    const p = { ...(this.profile(profileName) ?? {}), [key as SettingKey]: v };
    this.putProfile(profileName, p);
    return v;
  }

  unset(profileName: string, key: string): boolean {
    const p = { ...(this.profile(profileName) ?? {}) };
    if (!(key in p)) return false;
    delete p[key as SettingKey];
    this.putProfile(profileName, p);
    return true;
  }

  use(name: string): void {
    if (!this.profile(name)) throw new ConfigError(`no profile named "${name}"`, { hint: 'see `lanyard profile list`' });
    this.conf.set('activeProfile', name);
  }

  remove(name: string): boolean {
    const all = { ...this.profiles() };
    if (!all[name]) return false;
    delete all[name];
    this.conf.set('profiles', all);
    if (this.activeProfile === name) this.conf.delete('activeProfile');
    return true;
  }
}

/**
 * The OS keychain through @napi-rs/keyring's keytar-compatible API, service
 * `lanyard`. Every call has a time limit: a locked or absent Secret Service
 * must not hang the CLI.
 */
import type { CredentialStore } from '../deps.js';
import { CredentialStoreError } from '../errors.js';
import { KEYCHAIN_SERVICE } from './accounts.js';

type Keytar = typeof import('@napi-rs/keyring/keytar.js');

export class KeychainCredentialStore implements CredentialStore {
  readonly kind = 'keychain';
  private constructor(
    private readonly keytar: Keytar,
    private readonly timeoutMs: number,
    private readonly service: string,
  ) {}

  /** Loads the binding; throws CredentialStoreError when it cannot load. */
  static async load(options: { timeoutMs?: number; service?: string } = {}): Promise<KeychainCredentialStore> {
    let keytar: Keytar;
    try {
      const mod = (await import('@napi-rs/keyring/keytar.js')) as Keytar & { default?: Keytar };
      keytar = mod.default ?? mod;
    } catch (err) {
      throw new CredentialStoreError('the keychain binding could not be loaded', { cause: err });
    }
    return new KeychainCredentialStore(keytar, options.timeoutMs ?? 3000, options.service ?? KEYCHAIN_SERVICE);
  }

  async #call<T>(what: string, f: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        f(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new CredentialStoreError(`the keychain did not answer within ${this.timeoutMs} ms (${what})`)), this.timeoutMs);
          timer.unref?.();
        }),
      ]);
    } catch (err) {
      if (err instanceof CredentialStoreError) throw err;
      throw new CredentialStoreError(`keychain ${what} failed: ${String((err as Error)?.message ?? err).split('\n')[0]}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  async get(account: string): Promise<string | undefined> {
    const v = await this.#call('read', () => this.keytar.getPassword(this.service, account));
    return v ?? undefined;
  }

  async set(account: string, secret: string): Promise<void> {
    await this.#call('write', () => this.keytar.setPassword(this.service, account, secret));
  }

  async delete(account: string): Promise<boolean> {
    return await this.#call('delete', () => this.keytar.deletePassword(this.service, account));
  }

  async list(): Promise<string[]> {
    const all = await this.#call('list', () => this.keytar.findCredentials(this.service));
    return all.map((c) => c.account);
  }
}

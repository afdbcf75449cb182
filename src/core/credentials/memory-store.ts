import type { CredentialStore } from '../deps.js';

/** A credential store that keeps secrets in this process only (programs that hold their tokens themselves, tests). */
export class MemoryCredentialStore implements CredentialStore {
  readonly kind = 'memory';
  readonly #data = new Map<string, string>();

  async get(account: string): Promise<string | undefined> {
    return this.#data.get(account);
  }

  async set(account: string, secret: string): Promise<void> {
    this.#data.set(account, secret);
  }

  async delete(account: string): Promise<boolean> {
    return this.#data.delete(account);
  }

  async list(): Promise<string[]> {
    return [...this.#data.keys()];
  }
}

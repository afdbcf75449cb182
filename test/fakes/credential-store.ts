import type { CredentialStore } from '../../src/core/deps.js';

export class MemoryCredentialStore implements CredentialStore {
  readonly kind = 'memory';
  readonly data = new Map<string, string>();
  async get(account: string) {
    return this.data.get(account);
  }
  async set(account: string, secret: string) {
    this.data.set(account, secret);
  }
  async delete(account: string) {
    return this.data.delete(account);
  }
  async list() {
    return [...this.data.keys()];
  }
}

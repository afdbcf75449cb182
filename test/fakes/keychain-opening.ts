/** An opened OS keychain for tests: the binding's calls on a map, as `startKeychainOpen` would hand it over. */
import type { KeychainBinding } from '../../src/core/credentials/keychain-binding.js';
import type { KeychainOpening } from '../../src/core/credentials/keychain-open.js';

/** An opened keychain of the given entries; `data` is what the keychain holds now. */
export function keychainOf(entries: Record<string, string>): KeychainOpening & { data: Map<string, string> } {
  const data = new Map(Object.entries(entries));
  const binding: KeychainBinding = {
    getPassword: async (_s, account) => data.get(account),
    setPassword: async (_s, account, password) => void data.set(account, password),
    deletePassword: async (_s, account) => data.delete(account),
    findCredentials: async () => [...data].map(([account, password]) => ({ account, password })),
  };
  return {
    data,
    sent: Promise.resolve(),
    result: Promise.resolve({ ok: true, binding, entries: [...data].map(([account, password]) => ({ account, password })) }),
  };
}

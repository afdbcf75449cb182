/**
 * What the hosting tests that drive the emulator through Octokit share: a
 * client for a token (the seeded personal token by default; Octokit's log
 * silenced) and a token of a user with the scopes asked for.
 */
import { Octokit } from '@octokit/rest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { SEED } from '../../../src/emulator/services/hosting/state.js';

export function hostingOctokit(ref: { readonly emu: RunningEmulator }) {
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  return {
    rest: (auth: string = SEED.personalToken) => new Octokit({ auth, baseUrl: ref.emu.urls.hosting.api, log: quiet }),
    tokenWith: async (login: string, scopes: string[]) =>
      ((await ref.emu.admin('hosting', 'issue-token', { login, clientId: SEED.app.clientId, scopes })) as { access_token: string }).access_token,
  };
}

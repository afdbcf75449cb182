/**
 * `auth logout` says what holds: where a personal token (created or pasted)
 * is revoked (the personal tokens page, not the OAuth app's page, which
 * has nothing to do with it), and a new active account only when the active
 * one changed.
 */
import { describe, expect, it } from 'vitest';
import { runAuthLogout, runAuthToken, runAuthTokenCreate } from '../../../../src/cli/commands/auth/run.js';
import { useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const MONA_TOKEN = 'lyp_emulator_default_token_0000000000000001';

async function storeBoth(): Promise<void> {
  const created = await cmd.run((ctx) => runAuthTokenCreate(ctx, { user: 'hubot', note: 'logout test' }), { stdin: 'hubot-emulator-password' });
  expect(created.code, created.stderr).toBe(0);
  // Stored last: mona is the active account.
  const pasted = await cmd.run((ctx) => runAuthToken(ctx, { withToken: true }), { stdin: `${MONA_TOKEN}\n` });
  expect(pasted.code, pasted.stderr).toBe(0);
}

describe('auth logout', () => {
  it('a personal token of an account that is not active: its revoke page, no app page, no "Active account is now"', async () => {
    await storeBoth();
    const web = cmd.settings()['hosting.webUrl']!.replace(/\/+$/, '');
    const r = await cmd.run((ctx) => runAuthLogout(ctx, { user: 'hubot' }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('account hubot');
    expect(r.stderr).toContain(`${web}/settings/tokens`);
    expect(r.stderr).not.toContain('/settings/connections/applications');
    expect(r.stderr).not.toMatch(/Active account is now/);
  });

  it('a pasted token: where personal tokens are revoked (if it is one), not the app page', async () => {
    await storeBoth();
    const r = await cmd.run((ctx) => runAuthLogout(ctx, { user: 'mona' }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /If it is a personal token, it is still valid on the server until revoked where personal tokens are managed:\n {2}\S+\/settings\/tokens/,
    );
    expect(r.stderr).not.toContain('/settings/connections/applications');
    // mona was the active account: the other one is now.
    expect(r.stderr).toContain('Active account is now hubot.');
  });
});

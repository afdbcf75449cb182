/**
 * A script's requests to an emulator, for the journal's tests (the journal
 * itself in emulator-journal.test.ts, `emulator requests` in
 * test/unit/cli/emulator/journal.test.ts): a token, an OAuth exchange with
 * secrets, a token check. Returns the secrets the journal must redact.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';

export async function journalScript(emu: RunningEmulator): Promise<{ secrets: string[] }> {
  const { hosting } = emu.fixtures;
  const app = hosting.app;
  const api = emu.urls.hosting.api;
  await (await fetch(`${api}/user`, { headers: { authorization: `token ${hosting.personalToken}` } })).text();
  await (
    await fetch(`${emu.url}/login/oauth/access_token?client_secret=${app.clientSecret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ client_id: app.clientId, code: 'the-code-0123', refresh_token: 'ghr_refresh0123' }),
    })
  ).text();
  await (
    await fetch(`${api}/applications/${app.clientId}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ access_token: hosting.personalToken }),
    })
  ).text();
  return { secrets: [hosting.personalToken, app.clientSecret!, 'the-code-0123', 'ghr_refresh0123', hosting.user.password] };
}

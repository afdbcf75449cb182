import { describe, expect, it } from 'vitest';
import { appPlatformAccount, idTokenAccount, listCachedIdentityTokens } from '../../../../src/core/echo/credentials.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';

describe('listCachedIdentityTokens', () => {
  it('lists identity-provider and app-platform tokens with host, project and validity; skips keys and unreadable records', async () => {
    const now = Date.UTC(2026, 10, 24, 9, 0, 0);
    const store = new MemoryCredentialStore();
    const rec = (token: string, expiresAt: number) =>
      JSON.stringify({ token, expiresAt, issuer: 'https://idp.example', clientId: 'cid', email: 'sa@example.com' });
    await store.set(idTokenAccount('http://127.0.0.1:8443'), rec('id-1', now + 1));
    await store.set(appPlatformAccount('https://platform.example', 'proj-7'), rec('ap-1', now));
    await store.set('echo:apikey:api.example', 'an-api-key');
    await store.set(idTokenAccount('https://broken.example'), '{not json');
    await store.set(idTokenAccount('https://partial.example'), JSON.stringify({ token: 'x' }));

    const found = await listCachedIdentityTokens(store, now);
    expect(found.map((t) => [t.kind, t.host, t.project, t.record.token, t.valid])).toEqual([
      ['idtoken', '127.0.0.1:8443', undefined, 'id-1', true],
      ['appplatform', 'platform.example', 'proj-7', 'ap-1', false],
    ]);
  });
});

/**
 * A second, emulated authorization server for the protocol's optional
 * third-party delegated flow: the protocol server sends the user here,
 * exchanges the returned code for a third-party token, and checks that
 * token's status before honouring the tokens it issued on top of it.
 */
import type { EmulatorClock } from '../../clock.js';
import { escapeHtml, type Router } from '../../router.js';
import { randomToken } from './state.js';

export const THIRD_PARTY_PREFIX = '/third-party';
export const THIRD_PARTY_CLIENT = { id: 'ctx-emulator-protocol', secret: 'ctx-emulator-protocol-secret' };

interface TpCode {
  redirectUri: string;
  state: string;
  expiresAt: number;
  used: boolean;
}
interface TpToken {
  expiresAt: number;
  revoked: boolean;
  subject: string;
}

export class ThirdPartyAuthServer {
  readonly codes = new Map<string, TpCode>();
  readonly tokens = new Map<string, TpToken>();
  ttlSec = 3600;

  constructor(
    readonly clock: EmulatorClock,
    readonly callbackUrl: () => string,
  ) {}

  reset(): void {
    this.codes.clear();
    this.tokens.clear();
    this.ttlSec = 3600;
  }

  /** Token exchange (the protocol server calling its third party). */
  exchange(code: string, redirectUri: string, clientId: string, clientSecret: string): { access_token: string; expires_in: number } | { error: string } {
    if (clientId !== THIRD_PARTY_CLIENT.id || clientSecret !== THIRD_PARTY_CLIENT.secret) return { error: 'invalid_client' };
    const c = this.codes.get(code);
    if (!c || c.used || c.expiresAt <= this.clock.now() || c.redirectUri !== redirectUri) return { error: 'invalid_grant' };
    c.used = true;
    const token = randomToken('tpat');
    this.tokens.set(token, { expiresAt: this.clock.now() + this.ttlSec * 1000, revoked: false, subject: 'third-party-user' });
    return { access_token: token, expires_in: this.ttlSec };
  }

  /** RFC 7662-style status of a third-party token. */
  introspect(token: string): { active: boolean; exp?: number; sub?: string } {
    const t = this.tokens.get(token);
    if (!t || t.revoked || t.expiresAt <= this.clock.now()) return { active: false };
    return { active: true, exp: Math.floor(t.expiresAt / 1000), sub: t.subject };
  }

  revokeAll(): number {
    let n = 0;
    for (const t of this.tokens.values()) if (!t.revoked) (t.revoked = true), n++;
    return n;
  }

  register(router: Router): void {
    const p = THIRD_PARTY_PREFIX;
    router.get(`${p}/authorize`, (req, res) => {
      const q = req.query;
      if (q.get('client_id') !== THIRD_PARTY_CLIENT.id || q.get('redirect_uri') !== this.callbackUrl() || !q.get('state')) {
        return res.html(400, '<!doctype html><title>Bad request</title><h1>Unknown client or missing redirect_uri/state</h1>');
      }
      res.html(
        200,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Third-party sign-in</title></head><body>
<h1>Third-party account</h1><p>The emulated tools server wants to act with your third-party account.</p>
<form method="post" action="${p}/authorize">
<input type="hidden" name="redirect_uri" value="${escapeHtml(q.get('redirect_uri')!)}"><input type="hidden" name="state" value="${escapeHtml(q.get('state')!)}">
<button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny">Deny</button></form></body></html>`,
      );
    });
    router.post(`${p}/authorize`, async (req, res) => {
      const f = await req.params_();
      if (f.redirect_uri !== this.callbackUrl() || !f.state) return res.html(400, '<!doctype html><title>Bad request</title><h1>Missing fields</h1>');
      const to = new URL(f.redirect_uri);
      to.searchParams.set('state', f.state);
      if (f.decision !== 'allow') to.searchParams.set('error', 'access_denied');
      else {
        const code = randomToken('tpcode');
        this.codes.set(code, { redirectUri: f.redirect_uri, state: f.state, expiresAt: this.clock.now() + 60_000, used: false });
        to.searchParams.set('code', code);
      }
      res.redirect(302, to.toString());
    });
    router.post(`${p}/token`, async (req, res) => {
      const f = await req.params_();
      const r = this.exchange(f.code ?? '', f.redirect_uri ?? '', f.client_id ?? '', f.client_secret ?? '');
      if ('error' in r) return res.json(400, r, { 'cache-control': 'no-store' });
      res.json(200, { ...r, token_type: 'Bearer' }, { 'cache-control': 'no-store' });
    });
    router.post(`${p}/introspect`, async (req, res) => {
      const f = await req.params_();
      res.json(200, this.introspect(f.token ?? ''));
    });
  }
}

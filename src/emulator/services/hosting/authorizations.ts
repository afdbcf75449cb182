/**
 * The non-web flow: POST /api/v3/authorizations with Basic authentication
 * (login and password) creates a personal access token the user can revoke.
 */
import { Hosting } from '../../../shared/constants.js';
import type { EmuRequest, Router } from '../../router.js';
import type { HostingState, HostingUser } from './state.js';
import { authorizationJson } from './token-api.js';
import { apiError, REST_DOCS } from './errors.js';

function basicUser(state: HostingState, req: EmuRequest): HostingUser | undefined | 'malformed' {
  const m = /^basic\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = text.indexOf(':');
  if (i < 0) return 'malformed';
  const u = state.users.get(text.slice(0, i));
  return u && u.password === text.slice(i + 1) ? u : 'malformed';
}

export function registerAuthorizations(router: Router, state: HostingState, base: () => string): void {
  const path = `${Hosting.apiPathPrefix}/authorizations`;
  router.post(path, async (req, res) => {
    const user = basicUser(state, req);
    if (user === undefined) return res.json(401, apiError(401, 'Requires authentication', undefined, `${REST_DOCS}/oauth-authorizations`));
    if (user === 'malformed') return res.json(401, apiError(401, 'Bad credentials'));
    let body: Record<string, unknown>;
    try {
      const text = await req.text();
      body = text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    } catch {
      return res.json(400, { message: 'Problems parsing JSON', status: '400' });
    }
    const scopes = body.scopes === undefined ? [] : body.scopes;
    if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !s)) {
      return res.json(422, { message: 'Validation Failed', errors: [{ resource: 'OauthAccess', field: 'scopes', code: 'invalid' }], status: '422' });
    }
    if (typeof body.note !== 'string' || !body.note.trim()) {
      return res.json(422, { message: 'Validation Failed', errors: [{ resource: 'OauthAccess', field: 'note', code: 'missing_field' }], status: '422' });
    }
    const now = state.now();
    const id = state.nextId();
    const value = state.newTokenValue('personal');
    state.tokens.set(value, { value, kind: 'personal', login: user.login, scopes: [...new Set(scopes as string[])], createdAt: now, note: body.note, id });
    const t = state.tokens.get(value)!;
    res.json(
      201,
      {
        ...authorizationJson(state, base(), t),
        note_url: typeof body.note_url === 'string' ? body.note_url : null,
        fingerprint: typeof body.fingerprint === 'string' ? body.fingerprint : null,
      },
      { location: `${base()}${path}/${id}` },
    );
  });
  router.route('OPTIONS', path, (_req, res) => res.json(405, { message: 'CORS pre-flight requests are not supported' }));
}

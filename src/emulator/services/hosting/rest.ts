/** REST endpoints of the hosting service under /api/v3. */
import { Hosting } from '../../../shared/constants.js';
import type { EmulatorEnv } from '../../service.js';
import type { Router } from '../../router.js';
import type { HostingState } from './state.js';

export function bearerOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(authorization);
  return m?.[1];
}

export function registerRestApi(router: Router, state: HostingState, _env: EmulatorEnv): void {
  const api = Hosting.apiPathPrefix;
  router.get(`${api}/user`, (req, res) => {
    const token = state.activeToken(bearerOf(req.header('authorization')));
    if (!token?.login) return res.json(401, { message: 'Requires authentication', documentation_url: 'https://docs.example.com/rest' });
    const u = state.users.get(token.login)!;
    res.json(200, { login: u.login, id: u.id, name: u.name, email: u.email, type: 'User' }, { 'x-oauth-scopes': token.scopes.join(', ') });
  });
}

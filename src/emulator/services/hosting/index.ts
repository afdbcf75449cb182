/** The hosting service: OAuth pages at the root, REST under /api/v3. */
import { Hosting } from '../../../shared/constants.js';
import { HostingOAuthPath } from '../../../shared/hosting-oauth.js';
import type { EmulatorEnv, EmulatorService } from '../../service.js';
import { HostingState, SEED } from './state.js';
import { registerRestApi } from './rest.js';
import { registerOAuth } from './oauth/index.js';
import { registerAuthorizations } from './authorizations.js';
import { hostingAdmin } from './admin.js';
import { registerRateLimits, resetRateLimits } from './ratelimit/index.js';
import { describeSeededCallers } from './ratelimit/seed.js';

export function createHostingService(env: EmulatorEnv): EmulatorService {
  const state = new HostingState(() => env.clock.now());
  const admin = hostingAdmin(state);
  return {
    name: 'hosting',
    register(router) {
      Object.assign(admin, registerRateLimits(router, state, env));
      registerRestApi(router, state, env);
      registerOAuth(router, state, () => env.baseUrl());
      registerAuthorizations(router, state, () => env.baseUrl());
    },
    reset() {
      state.reset();
      resetRateLimits(state);
    },
    admin,
    info() {
      const base = env.baseUrl();
      return {
        webUrl: base,
        apiUrl: base + Hosting.apiPathPrefix,
        users: [...state.users.values()].map((u) => ({ login: u.login, password: u.password, name: u.name, email: u.email })),
        apps: [...state.apps.values()].map((a) => ({ ...a })),
        personalToken: SEED.personalToken,
        pages: Object.fromEntries(Object.entries(HostingOAuthPath).map(([k, p]) => [k, base + p])),
        devicePolicy: { ...state.devicePolicy },
        rateLimitCallers: describeSeededCallers(state),
        profile: { 'hosting.webUrl': base, 'hosting.apiUrl': base + Hosting.apiPathPrefix, 'hosting.clientId': SEED.app.clientId },
      };
    },
  };
}

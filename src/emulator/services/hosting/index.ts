/** The hosting service: OAuth pages at the root, REST under /api/v3. */
import { Hosting } from '../../../shared/constants.js';
import { HostingOAuthPath } from '../../../shared/hosting-oauth.js';
import type { EmulatorEnv, EmulatorService } from '../../service.js';
import { HostingState, SEED } from './state.js';
import { registerRestApi } from './rest.js';
import { issuesOf } from './issues/store.js';
import { registerApiHeaders } from './conditional.js';
import { registerOAuth } from './oauth/index.js';
import { registerAuthorizations } from './authorizations.js';
import { registerTokenApi, TokensPagePath } from './token-api.js';
import { hostingAdmin } from './admin.js';
import { registerRateLimits, resetRateLimits } from './ratelimit/index.js';
import { describeSeededCallers } from './ratelimit/seed.js';
import { registerSso, resetSso } from './sso.js';
import { hostingConsole } from '../../console/views/hosting.js';
import { apiError, REST_DOCS } from './errors.js';

export function createHostingService(env: EmulatorEnv): EmulatorService {
  const state = new HostingState(() => env.clock.now());
  const admin = hostingAdmin(state);
  return {
    name: 'hosting',
    register(router) {
      // First: the API's usual headers and conditional reads also on the rate limiter's refusals.
      registerApiHeaders(router);
      Object.assign(admin, registerRateLimits(router, state, env));
      Object.assign(admin, registerSso(router, state, env));
      registerRestApi(router, state, env);
      registerOAuth(router, state, () => env.baseUrl());
      registerAuthorizations(router, state, () => env.baseUrl());
      registerTokenApi(router, state, () => env.baseUrl());
      // Errors the routes do not write themselves (no such route, unreadable body) in the API's shape. A method
      // the REST path does not serve is a 404, as the service's troubleshooting guide says (pre-flights stay 405).
      for (const prefix of [Hosting.apiPathPrefix, '/api/graphql'])
        router.errorShape(prefix, (status, message, req) => {
          const as = status === 405 && prefix === Hosting.apiPathPrefix && req.method !== 'OPTIONS' ? 404 : status;
          const docs = prefix === '/api/graphql' ? 'https://docs.example.com/graphql' : REST_DOCS;
          return { status: as, body: apiError(as, as === status ? message : 'Not Found', undefined, docs) };
        });
    },
    reset() {
      state.reset();
      resetRateLimits(state);
      issuesOf(state, () => env.clock.now()).reset();
      resetSso(state);
    },
    admin,
    console: () => hostingConsole(state, admin, () => env.clock.now()),
    info() {
      const base = env.baseUrl();
      return {
        webUrl: base,
        apiUrl: base + Hosting.apiPathPrefix,
        users: [...state.users.values()].map((u) => ({ login: u.login, password: u.password, name: u.name, email: u.email })),
        apps: [...state.apps.values()].map((a) => ({ ...a })),
        personalToken: SEED.personalToken,
        pages: { ...Object.fromEntries(Object.entries(HostingOAuthPath).map(([k, p]) => [k, base + p])), tokens: base + TokensPagePath },
        devicePolicy: { ...state.devicePolicy },
        rateLimitCallers: describeSeededCallers(state),
        profile: { 'hosting.webUrl': base, 'hosting.apiUrl': base + Hosting.apiPathPrefix, 'hosting.clientId': SEED.app.clientId },
      };
    },
  };
}

/**
 * The service-health emulator: the events list of a subscription (spec part b
 * of mailbox-and-service-health.md), its implicit-flow sign-in page, seeded
 * events and admin verbs. Imports only src/shared and the emulator host.
 */
import { Health } from '../../../shared/constants.js';
import type { EmulatorEnv, EmulatorService } from '../../service.js';
import { registerAuthorize } from './authorize.js';
import { registerEventsRoute } from './events-route.js';
import { SEED } from './seed.js';
import { HealthState } from './state.js';
import { healthConsole } from '../../console/views/others.js';

function positiveInt(v: unknown, name: string, max: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} must be an integer from 1 to ${max}`);
  return n;
}

export function createHealthService(env: EmulatorEnv): EmulatorService {
  const state = new HealthState(() => env.clock.now());
  return {
    name: 'health',
    register(router) {
      registerEventsRoute(router, state, env);
      registerAuthorize(router, state);
    },
    reset() {
      state.reset();
    },
    info() {
      const base = env.baseUrl();
      return {
        managementUrl: base,
        authUrl: base,
        authorizeUrl: base + Health.authorizePath,
        clientId: SEED.clientId,
        subscriptionId: SEED.subscriptionId,
        exampleSubscriptionId: SEED.exampleSubscriptionId,
        vendor: SEED.vendor,
        apiVersion: Health.defaultApiVersion,
        pageSize: state.pageSize,
        tokenLifetimeSec: state.tokenLifetimeSec,
        user: { login: SEED.user.login, password: SEED.user.password, name: SEED.user.name },
        guest: { login: SEED.guest.login, password: SEED.guest.password, name: SEED.guest.name },
        token: SEED.token,
        events: Object.fromEntries([...state.events].map(([sub, evs]) => [sub, evs.length])),
        profile: {
          'health.managementUrl': base,
          'health.authUrl': base,
          'health.clientId': SEED.clientId,
          'health.subscriptionId': SEED.subscriptionId,
        },
      };
    },
    console: () => healthConsole(state),
    admin: {
      /** `{subscriptionId?, event: {name?, properties: {...}}}` → the stored event. */
      'add-event': (body) => state.addEvent(body),
      /** `{trackingId, subscriptionId?, summary?}`: Active → Resolved. */
      resolve: (body) => state.resolve(body),
      /** `{pageSize?, tokenLifetimeSec?}` */
      configure: (body) => {
        if (body.pageSize !== undefined) state.pageSize = positiveInt(body.pageSize, 'pageSize', 1000);
        if (body.tokenLifetimeSec !== undefined) state.tokenLifetimeSec = positiveInt(body.tokenLifetimeSec, 'tokenLifetimeSec', 86_400 * 30);
        return { pageSize: state.pageSize, tokenLifetimeSec: state.tokenLifetimeSec };
      },
      /** `{login?, expiresInSec?}` → `{access_token, token_type, expires_in}` without the browser. */
      'issue-token': (body) => {
        const login = typeof body.login === 'string' ? body.login : SEED.user.login;
        if (!state.users.has(login)) throw new Error(`no user ${login}`);
        const life = body.expiresInSec === undefined ? state.tokenLifetimeSec : positiveInt(body.expiresInSec, 'expiresInSec', 86_400 * 30);
        const { token, expiresIn } = state.issueToken(login, SEED.clientId, life);
        return { access_token: token, token_type: 'Bearer', expires_in: expiresIn };
      },
    },
  };
}

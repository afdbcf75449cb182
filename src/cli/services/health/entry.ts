/** The health service's registry entry (see ../entry-kit.ts): its base URL, credential, exec variables, sign-in advice and doctor probe. */
import { requireSetting } from '../../../core/config/settings.js';
import { pathSegment } from '../../../core/path-segment.js';
import { Health } from '../../../shared/constants.js';
import { fromEnv, type ServiceEntry, under } from '../entry-kit.js';

export const health: ServiceEntry = {
  base: (settings, profile) => requireSetting(settings, 'health.managementUrl', profile),
  provider: async (ctx, settings) => (await import('./wiring.js')).healthAuth(ctx, settings),
  exec: {
    signIn: 'lanyard auth login --health (or set LANYARD_HEALTH_TOKEN)',
    variables: (secret) => ({ LANYARD_HEALTH_TOKEN: secret }),
  },
  signIn: ({ again }) => (again ? 'run `lanyard auth login --health` again' : 'run `lanyard auth login --health` (or set LANYARD_HEALTH_TOKEN)'),
  refused(source) {
    const fix = 'sign in with `lanyard auth login --health`';
    if (source === 'environment' || source === 'env:LANYARD_HEALTH_TOKEN') return fromEnv('LANYARD_HEALTH_TOKEN', 'health token', fix);
    return `the stored health token was refused (revoked or expired): ${fix.replace('sign in', 'sign in again')}`;
  },
  // The first page of the default subscription's events.
  doctor: {
    probe: (url, settings) => ({
      url: under(
        url,
        `/subscriptions/${pathSegment(requireSetting(settings, 'health.subscriptionId', 'this'), 'subscription')}/providers/${pathSegment(settings['health.vendor'] || Health.defaultVendor, 'vendor')}.ResourceHealth/events?api-version=${Health.defaultApiVersion}`,
      ),
    }),
  },
};

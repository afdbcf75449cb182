/** The echo service's registry entry (see ../entry-kit.ts): its base URL, credential, exec variables, sign-in advice and doctor probe. */
import { requireSetting } from '../../../core/config/settings.js';
import { Echo } from '../../../shared/constants.js';
import { fromEnv, NONE, type ServiceEntry, under } from '../entry-kit.js';

export const echo: ServiceEntry = {
  base: (settings, profile) => requireSetting(settings, 'echo.baseUrl', profile),
  provider: async (ctx, settings, profile) => (await (await import('./wiring.js')).echoAuth(ctx, echo.base(settings, profile))) ?? NONE(),
  exec: {
    signIn: 'lanyard echo key set (or set LANYARD_API_KEY)',
    variables: (secret, settings, profile) => ({ LANYARD_API_KEY: secret, LANYARD_ECHO_URL: requireSetting(settings, 'echo.baseUrl', profile) }),
  },
  signIn: () => 'set LANYARD_API_KEY, or store a key with `lanyard echo key set`',
  refused(source) {
    if (source === 'env:LANYARD_API_KEY') return fromEnv('LANYARD_API_KEY', 'API key', 'store one with `lanyard echo key set`');
    if (source === 'anonymous') return 'authentication needed: no API key was sent; set LANYARD_API_KEY or store one with `lanyard echo key set`';
    return 'the stored echo API key was refused: store a valid one with `lanyard echo key set`';
  },
  // The API's one call that takes the key: an echo of a short message.
  doctor: { probe: (url) => ({ method: 'POST', url: under(url, Echo.paths.echo), json: { message: 'lanyard doctor' } }) },
};

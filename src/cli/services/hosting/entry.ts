/** The hosting service's registry entry (see ../entry-kit.ts): its base URL, credential, exec variables, sign-in advice and doctor probe. */
import { requireSetting } from '../../../core/config/settings.js';
import { fromEnv, type ServiceEntry, under } from '../entry-kit.js';

export const hosting: ServiceEntry = {
  base: (settings, profile) => requireSetting(settings, 'hosting.apiUrl', profile),
  provider: async (ctx, settings, profile, o) => (await import('./wiring.js')).hostingAuth(ctx, { name: profile, settings }, o),
  exec: {
    signIn: 'lanyard auth device (or set LANYARD_TOKEN)',
    variables(secret, settings, profile) {
      const vars: Record<string, string> = {
        LANYARD_TOKEN: secret,
        GH_TOKEN: secret,
        GITHUB_TOKEN: secret,
        LANYARD_API_URL: requireSetting(settings, 'hosting.apiUrl', profile),
      };
      const web = settings['hosting.webUrl'];
      const host = web ? new URL(web).host : undefined;
      if (host && host !== 'github.com') Object.assign(vars, { GH_HOST: host, GH_ENTERPRISE_TOKEN: secret, GITHUB_ENTERPRISE_TOKEN: secret });
      return vars;
    },
  },
  signIn: ({ again, flow }) => {
    if (flow === 'web') return again ? 'run `lanyard auth login` again, or `lanyard auth device`' : 'sign in with `lanyard auth login` (web flow)';
    return again ? 'run `lanyard auth device` again' : 'sign in with `lanyard auth device`';
  },
  refused(source, login) {
    const fix = 'sign in with `lanyard auth device`';
    if (source === 'env:LANYARD_TOKEN') return fromEnv('LANYARD_TOKEN', 'token', fix);
    if (source === 'env:WORKFLOW_TOKEN') return fromEnv('WORKFLOW_TOKEN', 'token', fix);
    if (source === 'basic-client') return "the client id and secret were refused: check the profile's hosting.clientId and LANYARD_CLIENT_SECRET";
    if (source === 'anonymous') return 'authentication needed: no token was sent; sign in with `lanyard auth device` (or set LANYARD_TOKEN)';
    return `the stored token of ${login ?? 'this account'} was refused (revoked or expired): sign in again with \`lanyard auth device\``;
  },
  // GET /rate_limit: every credential may call it, it costs no budget, and its headers carry the budget.
  doctor: { probe: (url) => ({ url: under(url, '/rate_limit') }) },
};

/** The shape of a service's registry entry (each in cli/services/<service>/entry.ts) and the helpers entries share. */
import type { Context } from '../context.js';
import { type CredentialProvider, fixedCredential } from '../../core/auth/provider.js';
import type { ProfileSettings } from '../../core/config/settings.js';
import type { Probe } from '../../core/doctor/checks.js';

/** How a sign-in is asked for (the fields of the library's `sign-in` remedy). */
export interface SignInAsk {
  again?: boolean;
  flow?: 'web';
  serverUrl?: string;
  scopes?: string;
}

export interface ServiceEntry {
  /** The base URL of the service in a profile (a ConfigError naming the setting when it is missing). */
  base(settings: ProfileSettings, profile: string): string;
  /** The credential the service's own commands would use; `o.login` picks a stored hosting account. */
  provider(ctx: Context, settings: ProfileSettings, profile: string, o: { login?: string }): Promise<CredentialProvider>;
  /** `lanyard exec`: how to get a credential to hand over, and the variables its secret goes under. */
  exec?: {
    signIn: string;
    /** How to get a credential a program can use when the stored one is bound to a key that never leaves Lanyard (DPoP). */
    unbound?: string;
    variables(secret: string, settings: ProfileSettings, profile: string): Record<string, string>;
  };
  /** The advice that gets a credential of this service; undefined when it has none. */
  signIn(ask: SignInAsk): string | undefined;
  /** After a 401 on a request of `lanyard api`: which credential was refused (its source, whose) and what to do. */
  refused(source: string, login?: string): string;
  /**
   * `lanyard doctor`: the endpoint it checks (default: `base`) and the cheap
   * authenticated call that tells whether the service accepts the credential.
   */
  doctor: { url?(settings: ProfileSettings, profile: string): string; probe(url: string, settings: ProfileSettings): Probe };
}

export const under = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** `the token from LANYARD_TOKEN was refused: …`: a credential of the environment. */
export const fromEnv = (name: string, what: string, fix: string) => `the ${what} from ${name} was refused: set a valid one, or unset it and ${fix}`;

export const NONE = (): CredentialProvider => fixedCredential({ scheme: 'none' }, 'anonymous');

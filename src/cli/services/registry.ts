/**
 * The services, one entry each: what the CLI says about a service — how to
 * sign in to it, which credential it refused — in one place instead of a
 * switch in every command. Adding a service adds an entry here (see
 * docs/adding-a-service.md).
 */
import type { ServiceName } from '../../core/errors.js';

/** How a sign-in is asked for (the fields of the library's `sign-in` remedy). */
export interface SignInAsk {
  again?: boolean;
  flow?: 'web';
  serverUrl?: string;
  scopes?: string;
}

export interface ServiceEntry {
  /** The advice that gets a credential of this service; undefined when it has none. */
  signIn(ask: SignInAsk): string | undefined;
  /** After a 401 on a request of `lanyard api`: which credential was refused (its source, whose) and what to do. */
  refused(source: string, login?: string): string;
}

/** `the token from LANYARD_TOKEN was refused: …`: a credential of the environment. */
const fromEnv = (name: string, what: string, fix: string) => `the ${what} from ${name} was refused: set a valid one, or unset it and ${fix}`;

const hosting: ServiceEntry = {
  signIn: ({ again, flow }) => {
    if (flow === 'web') return again ? 'run `lanyard auth login` again, or `lanyard auth device`' : 'sign in with `lanyard auth login` (web flow)';
    return again ? 'run `lanyard auth device` again' : 'sign in with `lanyard auth device`';
  },
  refused(source, login) {
    const fix = 'sign in with `lanyard auth device`';
    if (source === 'env:LANYARD_TOKEN') return fromEnv('LANYARD_TOKEN', 'token', fix);
    if (source === 'env:WORKFLOW_TOKEN') return fromEnv('WORKFLOW_TOKEN', 'token', fix);
    if (source === 'basic-client') return 'the client id and secret were refused: check LANYARD_CLIENT_ID and LANYARD_CLIENT_SECRET';
    if (source === 'anonymous') return 'authentication needed: no token was sent; sign in with `lanyard auth device` (or set LANYARD_TOKEN)';
    return `the stored token of ${login ?? 'this account'} was refused (revoked or expired): sign in again with \`lanyard auth device\``;
  },
};

const health: ServiceEntry = {
  signIn: ({ again }) => (again ? 'run `lanyard auth login --health` again' : 'run `lanyard auth login --health` (or set LANYARD_HEALTH_TOKEN)'),
  refused(source) {
    const fix = 'sign in with `lanyard auth login --health`';
    if (source === 'environment') return fromEnv('LANYARD_HEALTH_TOKEN', 'health token', fix);
    return `the stored health token was refused (revoked or expired): ${fix.replace('sign in', 'sign in again')}`;
  },
};

const echo: ServiceEntry = {
  signIn: () => 'set LANYARD_API_KEY, or store a key with `lanyard echo key set`',
  refused(source) {
    if (source === 'env:LANYARD_API_KEY') return fromEnv('LANYARD_API_KEY', 'API key', 'store one with `lanyard echo key set`');
    if (source === 'anonymous') return 'authentication needed: no API key was sent; set LANYARD_API_KEY or store one with `lanyard echo key set`';
    return 'the stored echo API key was refused: store a valid one with `lanyard echo key set`';
  },
};

const protocol: ServiceEntry = {
  signIn: ({ serverUrl, scopes }) => {
    const server = serverUrl ?? '<url>';
    if (scopes) return `run \`lanyard auth login --server ${server} --scopes "${scopes}"\``;
    return `run \`lanyard auth login --server ${server}\` to sign in again`;
  },
  refused(source) {
    const fix = 'sign in with `lanyard auth login --server <url>` (or run `lanyard protocol request`)';
    if (source === 'anonymous') return `authentication needed: no protocol token was sent; ${fix}`;
    return `the stored protocol token was refused after a refresh: ${fix.replace('sign in', 'sign in again')}`;
  },
};

const mailbox: ServiceEntry = {
  signIn: () => undefined,
  refused: () => 'the mailbox API refused the request (it defines no authentication of its own)',
};

/** Every service, by name: the one table the CLI consults about a service. */
export const SERVICES: Readonly<Record<ServiceName, ServiceEntry>> = { hosting, echo, protocol, mailbox, health };

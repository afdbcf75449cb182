/**
 * What a service shows on the emulator's console (`/_emulator/console`): its
 * accounts, credentials (masked), sessions, sign-ins in progress, counts and
 * rate limits. Every value is display text with no secret in it; the actions
 * (revoke, approve, deny) are closures the console calls by an opaque handle,
 * so no token ever reaches the page to name what to act on.
 */
import type { HostingBucketView } from '../../shared/hosting-ratelimit.js';

/** An action on one item; returns the outcome (a redirect for a browser sign-in answered from the console). */
export type ConsoleAction = () => unknown | Promise<unknown>;

export interface ConsoleCredential {
  /** Stable identity of the credential inside the service (never shown: the console turns it into a handle). */
  key: string;
  /** The credential as the CLI masks it. */
  masked: string;
  kind: string;
  /** Whose it is (a login, an e-mail, a client id). */
  subject: string;
  client?: string;
  scopes?: string;
  /** Epoch ms on the emulator clock; undefined: does not expire. */
  expiresAt?: number;
  revoked?: boolean;
  revoke?: ConsoleAction;
}

export interface ConsoleSession {
  key: string;
  masked: string;
  subject: string;
  note?: string;
  end?: ConsoleAction;
}

export interface ConsolePending {
  key: string;
  kind: 'device code' | 'authorization request';
  /** What the person is shown (a device's user code; an authorization request's client). */
  code: string;
  client: string;
  scopes: string;
  expiresAt: number;
  /** Seeded users the service can answer as; empty when it has no sign-in (the protocol's consent). */
  users: string[];
  /** Approves (as `login`) or denies; a browser sign-in returns `{ redirect }`, where the console sends the browser. */
  decide: (approve: boolean, login: string | undefined) => unknown;
}

/** A hosting rate-limit bucket, as the `budgets` verb lists it. */
export type ConsoleBucket = HostingBucketView;

export interface ConsoleWindow {
  caller: string;
  /** e.g. "points per minute (GET /api/v3/user)". */
  name: string;
  used: number;
  limit: number;
}

export interface ConsoleView {
  users?: Array<{ name: string; note?: string }>;
  apps?: Array<{ name: string; note?: string }>;
  credentials?: ConsoleCredential[];
  sessions?: ConsoleSession[];
  pending?: ConsolePending[];
  /** Counts shown as they are (messages per mailbox, events per subscription). */
  counts?: Array<{ name: string; value: number }>;
  /** Recent records worth a line (health events). */
  events?: Array<{ name: string; status: string; note?: string }>;
  limits?: { buckets: ConsoleBucket[]; windows: ConsoleWindow[]; secondaryLimits: Record<string, number> };
}

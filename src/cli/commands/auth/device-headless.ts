/**
 * `auth device` without a terminal (`ssh host lanyard auth device`, a CI job):
 * the device flow exists for exactly this case, a person reads the code from
 * the output and enters it on another machine. The sign-in the user asked for
 * by name starts; the code and the URL go to standard error (and, in CI, as
 * one `device_code` event line), and polling follows the server's interval
 * rules as on a terminal. LANYARD_PROMPT_DISABLED still refuses it. Sign-ins
 * a command would start on its own keep needing a person (interactive.ts).
 */
import { AuthRequiredError } from '../../../core/errors.js';
import type { DeviceAuthorization } from '../../../core/hosting/oauth.js';
import { ciEvent } from '../../ci.js';
import type { Context } from '../../context.js';
import { noPersonReason, promptDisabled } from '../../terminal/interactive.js';

/**
 * Whether the device sign-in runs headless (no terminal, no browser helper):
 * throws exit 4 when LANYARD_PROMPT_DISABLED forbids any sign-in.
 */
export function deviceHeadless(ctx: Pick<Context, 'io' | 'env'>, instead: string): boolean {
  if (promptDisabled(ctx.env)) {
    throw new AuthRequiredError('the device sign-in needs a person, and LANYARD_PROMPT_DISABLED is set: not starting it', { hint: instead });
  }
  return noPersonReason(ctx.io, ctx.env) !== undefined;
}

/** How long a code lives, in words. */
export function expiresInWords(sec: number): string {
  return sec >= 120 ? `${Math.round(sec / 60)} minutes` : `${sec} seconds`;
}

/** Shows the code and the URL without a terminal: plain lines on stderr, and an event line in CI. */
export function announceHeadless(ctx: Pick<Context, 'io' | 'env' | 'clock'>, auth: DeviceAuthorization): void {
  ctx.io.err(`! First copy your one-time code: ${auth.userCode}`);
  ctx.io.err(`Then open ${auth.verificationUri} in a browser on any device and enter it.`);
  ctx.io.err(`The code expires in ${expiresInWords(auth.expiresIn)}. Waiting for authorization (no terminal: Ctrl-C or SIGTERM stops it)…`);
  ciEvent(ctx.io, ctx.env, ctx.clock.now(), 'device_code', {
    user_code: auth.userCode,
    verification_uri: auth.verificationUri,
    expires_in: auth.expiresIn,
    interval: auth.interval,
  });
}

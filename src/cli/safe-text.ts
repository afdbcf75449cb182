/**
 * What may reach a terminal or a log from a server: `safeText` is the one
 * function every diagnostic line on stderr goes through (main's error line,
 * warnings, notices), and table cells (`sanitize` in output.ts) build on it.
 *
 * - Control characters are removed: a server message with `ESC]0;…` (window
 *   title), `ESC[2J` (clear screen), a bare CR (overwrite the line) or a
 *   bidirectional override cannot act on the user's terminal. Newlines and
 *   tabs stay.
 * - Known secrets are replaced by [REDACTED]: the values of secret
 *   environment variables, every credential this process read from or wrote
 *   to a store, and anything shaped like a token, so a server that echoes the
 *   credential in its error body does not get it printed.
 */
import { isSecretField } from '../core/http/redact.js';

/** C0 controls but tab and newline, DEL, C1 controls, and the Unicode bidirectional controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Token shapes redacted wherever they appear: the code host's (and the emulator's) prefixes, JWTs. */
const TOKEN_SHAPES = /\b(?:gh[opusr]_|github_pat_|ly[opusrw]_)[A-Za-z0-9_-]{16,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g;

const REDACTED = '[REDACTED]';

/** Environment variables that hold secrets: every LANYARD_* credential, CI tokens, and anything named like a token, secret, password or key. */
const SECRET_VARIABLE = /TOKEN|SECRET|PASSW(?:OR)?D|PASSPHRASE|CREDENTIAL|API_?KEY|ACCESS_KEY|PRIVATE_KEY|SIGNING_KEY/i;

export function isSecretVariable(name: string): boolean {
  return SECRET_VARIABLE.test(name);
}

/** A copy of `env` without its secret variables (LANYARD_TOKEN, LANYARD_CLIENT_SECRET, GH_TOKEN, ...), for child processes such as the browser. */
export function scrubbedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !isSecretVariable(k)) out[k] = v;
  return out;
}

/** Shorter values are not redacted (they would blank out ordinary words). */
const MIN_SECRET_LENGTH = 8;
const secrets = new Set<string>();

/**
 * Remembers a secret to redact from everything shown. A JSON value (a stored
 * token set, a client registration) gives its secret fields (accessToken,
 * refresh_token, clientSecret, ...), not the rest (an email, a login).
 */
export function rememberSecret(value: string | undefined): void {
  if (!value) return;
  // As sent in a URL or a form body too (`a+b/c` is `a%2Bb%2Fc` there).
  const add = (v: unknown): void => {
    if (typeof v !== 'string' || v.length < MIN_SECRET_LENGTH) return;
    secrets.add(v);
    secrets.add(encodeURIComponent(v));
    secrets.add(new URLSearchParams({ v }).toString().slice(2));
  };
  const fields = (o: unknown): void => {
    if (!o || typeof o !== 'object') return;
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'object') fields(v);
      else if (isSecretField(k.replace(/([a-z])([A-Z])/g, '$1_$2'))) add(v);
    }
  };
  if (value.startsWith('{')) {
    try {
      fields(JSON.parse(value));
      return;
    } catch {
      /* not JSON: the value itself */
    }
  }
  add(value);
}

/** Remembers the values of the secret variables of `env`. */
export function rememberSecretEnv(env: NodeJS.ProcessEnv): void {
  for (const [k, v] of Object.entries(env)) if (isSecretVariable(k)) rememberSecret(v);
}

/** Known secrets and token shapes replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out.replace(TOKEN_SHAPES, REDACTED);
}

/** Control characters removed (newlines and tabs kept). */
export function stripControls(text: string): string {
  return text.replace(CONTROL, '');
}

/** Text fit for a terminal or a CI log: secrets redacted, control characters removed. */
export function safeText(text: string): string {
  return stripControls(redactSecrets(text));
}

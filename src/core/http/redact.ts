/** Redaction of secrets in `--debug` traces and error messages. */

export const REDACTED = '[REDACTED]';

/** Parameter / field names whose values are secrets wherever they appear. */
export const SECRET_FIELDS = [
  'key',
  'api_key',
  'client_secret',
  'code',
  'device_code',
  'access_token',
  'refresh_token',
  'id_token',
  'password',
  'token',
  'code_verifier',
  'assertion',
  'client_assertion',
  'user_code_secret',
  'private_key',
  'token_last_eight',
  'hashed_token',
  // A signed download URL's signature (a storage host's, where a redirect sends a download): whoever has it may fetch.
  'sig',
  'signature',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
];
const SECRET_SET = new Set(SECRET_FIELDS);
// `dpop`: a proof is no bearer secret, but a server that does not track its jti would take it again within its lifetime.
export const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'dpop']);

export function isSecretField(name: string): boolean {
  return SECRET_SET.has(name.toLowerCase());
}

/** A URL with secret query parameters (and userinfo, and a fragment's tokens) redacted. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return redactQueryString(url);
  }
  const hadUserinfo = !!(u.username || u.password);
  if (hadUserinfo) {
    u.username = 'userinfo';
    u.password = '';
  }
  let out = u.toString();
  if (hadUserinfo) out = out.replace('//userinfo@', `//${REDACTED}@`);
  if (u.search) out = out.replace(u.search, '?' + redactQueryString(u.search.slice(1)));
  if (u.hash) out = out.replace(u.hash, '#' + redactQueryString(u.hash.slice(1)));
  return out;
}

/** `a=1&code=xyz` → `a=1&code=[REDACTED]` (form bodies and query strings). */
export function redactQueryString(qs: string): string {
  return qs.replace(/(^|[?&#;])([^=&#;]+)=([^&#;]*)/g, (m, sep: string, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      /* keep raw */
    }
    return isSecretField(decoded) ? `${sep}${name}=${REDACTED}` : m;
  });
}

/**
 * A word of a header's name (split at `-`, `_`, `.`) that says the header
 * carries a credential: one starting with a credential word (`Authorization`,
 * `X-Auth-Token`, `Session-Id`, `Private-Token`, `X-Hub-Signature-256`,
 * `X-GitHub-OTP`) or a compound ending with one (`ApiKey`, `X-CSRFToken`);
 * not `OAuth` (`X-OAuth-Scopes` names scopes).
 */
const SECRET_NAME_WORD =
  /^(?:auth|token|key|secret|passw(?:or)?d|passphrase|pwd|session|cookie|signature|credential|jwt|assertion|otp|csrf|xsrf|bearer)|(?:token|key|secret|passw(?:or)?d|session|cookie|signature|credentials?|jwt)$/;
/**
 * Headers whose names have such a word but whose values are none: a
 * challenge (`WWW-Authenticate`), CORS lists of header names and flags, when
 * a credential expires (`GitHub-Authentication-Token-Expiration`).
 */
const NOT_SECRET_HEADER = /^(?:www-authenticate|proxy-authenticate|access-control-.*|.*-(?:expiration|expires|expiry))$/;

/**
 * Whether a header carries a credential, by its name (case-insensitive): the
 * known ones (SECRET_HEADERS) and any whose name says so — a token, key,
 * secret, password, session, cookie, signature or credential, whatever the
 * service calls it (`Private-Token`, `X-Vault-Token`, `Api-Key`,
 * `Ocp-Apim-Subscription-Key`).
 */
export function isSecretHeader(name: string): boolean {
  const n = name.toLowerCase();
  if (SECRET_HEADERS.has(n)) return true;
  if (NOT_SECRET_HEADER.test(n)) return false;
  return n.split(/[-_.\s]+/).some((word) => SECRET_NAME_WORD.test(word));
}

/** A header's value as a trace shows it: a credential's replaced (an `Authorization` keeps its scheme), any other as it is. */
export function redactHeaderValue(name: string, value: string): string {
  if (!isSecretHeader(name)) return value;
  if (/authorization$/i.test(name)) {
    const scheme = value.split(' ')[0];
    return scheme && scheme !== value ? `${scheme} ${REDACTED}` : REDACTED;
  }
  return REDACTED;
}

/**
 * The values of a request's headers that carry a credential, as sent and,
 * for a `Scheme value` one, the value alone: what a caller redacts from the
 * text it shows (a server that echoes a header shows it).
 */
export function secretHeaderValues(headers: Readonly<Record<string, string>> | undefined): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (!v || !isSecretHeader(k)) continue;
    out.push(v);
    const i = v.indexOf(' ');
    if (i > 0) out.push(v.slice(i + 1).trim());
  }
  return out;
}

/** Deep copy of a JSON value with secret fields replaced. */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretField(k) && v !== null && v !== undefined ? REDACTED : redactJson(v);
    return out;
  }
  return value;
}

/** Redacts a body for tracing, by content type; non-text bodies are summarised. */
export function redactBody(text: string, contentType: string | undefined): string {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.stringify(redactJson(JSON.parse(text)));
    } catch {
      /* fall through */
    }
  }
  if (ct.includes('x-www-form-urlencoded') || /^[^\s=&]+=[^\s]*(&[^\s=&]+=[^\s]*)*$/.test(text.trim())) {
    return redactQueryString(text.trim());
  }
  if (ct.includes('xml') || /^\s*</.test(text)) {
    return text.replace(/<(access_token|refresh_token|id_token|client_secret|device_code|code|password|token)>[^<]*<\/\1>/gi, `<$1>${REDACTED}</$1>`);
  }
  return text;
}

/**
 * Removes known secret values from free text (last line of defence for
 * messages): every occurrence of each secret is replaced.
 */
export function scrubSecrets(text: string, secrets: Iterable<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  return out;
}

/** Headers whose value is a URL (or, `Link`, a list of `<URL>`s): a signed download URL or a next page may carry a secret parameter. */
const URL_HEADERS = new Set(['location', 'content-location', 'link', 'referer']);

/**
 * A URL-valued header (`Location`, `Content-Location`, `Referer`, each
 * `<URL>` of a `Link`) as a trace shows it: its secret query and fragment
 * parameters redacted as redactUrl does (a relative one too); any other
 * header as it is.
 */
export function redactUrlHeader(name: string, value: string): string {
  const n = name.toLowerCase();
  if (!URL_HEADERS.has(n)) return value;
  if (n === 'link') return value.replace(/<([^>]*)>/g, (_m, u: string) => `<${redactReference(u)}>`);
  return redactReference(value);
}

/** An absolute URL or a relative reference with its secret parameters redacted. */
function redactReference(ref: string): string {
  if (URL.canParse(ref)) return redactUrl(ref);
  const i = ref.search(/[?#]/);
  return i < 0 ? ref : ref.slice(0, i + 1) + redactQueryString(ref.slice(i + 1));
}

/**
 * The code host's single sign-on header, `X-GitHub-SSO`, in its two forms:
 *   required; url=https://…/orgs/ORG/sso?authorization_request=…
 *     (a 403: the token must be authorised for the organisation at that URL)
 *   partial-results; organizations=21955855,20582480
 *     (a listing left out the resources of those organisations, by id)
 * Server data: the URL is printed only when it is an https URL (http only on
 * a loopback host, where the emulator runs), sanitised of every control
 * character; organisation ids are digits only.
 */
import { AuthRequiredError } from '../errors.js';
import { isLoopbackHost } from '../http/loopback-host.js';
import type { ResponseHook } from '../http/types.js';

export const SSO_HEADER = 'x-github-sso';

export type SsoHeader = { kind: 'required'; url?: string } | { kind: 'partial-results'; organizations: string[] };

/** The URL of a `required` header, if it may be shown: absolute https (http on loopback), no user info, no control characters or spaces. */
export function safeSsoUrl(text: string | undefined): string | undefined {
  if (!text || /[\u0000-\u0020\u007f-\u009f]/.test(text)) return undefined;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return undefined;
  }
  if (u.username || u.password) return undefined;
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) return undefined;
  return u.toString();
}

/** Parses the header; undefined when absent or of another form. */
export function parseSsoHeader(value: string | undefined): SsoHeader | undefined {
  if (!value) return undefined;
  const [head, ...params] = value.split(';').map((p) => p.trim());
  const param = (name: string) => {
    const p = params.find((x) => x.toLowerCase().startsWith(`${name}=`));
    return p?.slice(name.length + 1).trim();
  };
  if (head?.toLowerCase() === 'required') return { kind: 'required', url: safeSsoUrl(param('url')) };
  if (head?.toLowerCase() === 'partial-results') {
    const organizations = (param('organizations') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => /^\d{1,20}$/.test(s));
    return { kind: 'partial-results', organizations };
  }
  return undefined;
}

/** The one-line error of a 403 that asks for single sign-on (exit 4), or undefined when the response is not one. */
export function ssoRequiredError(status: number, headers: Readonly<Record<string, string>>): AuthRequiredError | undefined {
  if (status !== 403) return undefined;
  const h = parseSsoHeader(headers[SSO_HEADER]);
  if (h?.kind !== 'required') return undefined;
  return new AuthRequiredError(
    h.url
      ? `the organisation enforces single sign-on: authorise the token at ${h.url}`
      : 'the organisation enforces single sign-on: authorise the token for it (the server sent no usable https URL)',
    { service: 'hosting' },
  );
}

/** The organisations a listing left out (partial-results), or undefined. */
export function ssoPartialResults(headers: Readonly<Record<string, string>>): string[] | undefined {
  const h = parseSsoHeader(headers[SSO_HEADER]);
  return h?.kind === 'partial-results' && h.organizations.length ? h.organizations : undefined;
}

/**
 * The code host's hook on the HTTP client: a 403 that asks for single sign-on
 * becomes its one-line error (exit 4); a listing with partial results is
 * reported to `onPartialResults` (organisation ids, the URL redacted).
 */
export function ssoHook(onPartialResults?: (organizations: string[], url: string) => void): ResponseHook {
  return {
    ok: (head) => {
      const left = onPartialResults && ssoPartialResults(head.headers);
      if (left) onPartialResults(left, head.url);
    },
    refused: (head) => ssoRequiredError(head.status, head.headers),
  };
}

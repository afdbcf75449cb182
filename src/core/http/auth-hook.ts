/**
 * The auth hook of every request (Octokit's `auth.hook`, ky's afterResponse
 * retry): a request with `auth` gets the provider's credential; a 401 (thrown,
 * or returned when the caller accepts 401) asks the provider once for a new
 * credential and sends the request again with it. A streamed body cannot be
 * sent twice, so such a request is not retried. A 401 from another origin (a
 * redirect's, which went without the credential) says nothing of the
 * credential: no refresh, and it is not named as the one refused.
 */
import { HttpError } from '../errors.js';
import { buildUrl } from './pipeline.js';
import { isStream } from './retry.js';
import type { HttpResponse, RequestSpec } from './types.js';

export async function sendWithAuth(spec: RequestSpec, send: (spec: RequestSpec) => Promise<HttpResponse>): Promise<HttpResponse> {
  const auth = spec.auth;
  if (!auth) return send(spec);
  const used = spec.credential ?? (await auth.credential());
  const first: RequestSpec = { ...spec, credential: used };
  const retry = auth.refresh && !isStream(spec.body) ? auth.refresh.bind(auth) : undefined;
  // A 401 that escapes says whose credential was refused (the provider's source and login), for the caller to act on.
  const refused = (err: unknown) => {
    if (refusedHere(err, spec)) {
      err.credentialSource ??= auth.source;
      if (auth.login) err.credentialLogin ??= auth.login;
    }
    return err;
  };
  let res: HttpResponse;
  try {
    res = await send(first);
  } catch (err) {
    if (retry && refusedHere(err, spec)) {
      const next = await retry(used);
      if (next) return send({ ...spec, credential: next }).catch((e: unknown) => Promise.reject(refused(e)));
    }
    throw refused(err);
  }
  if (retry && res.status === 401 && ownOrigin(res.url, spec)) {
    const next = await retry(used);
    if (next) {
      await res.dump();
      return send({ ...spec, credential: next });
    }
  }
  return res;
}

/** A 401 of the origin `spec` sends its credential to, not of one a redirect led to without it (HttpError.otherOrigin). */
function refusedHere(err: unknown, spec: RequestSpec): err is HttpError {
  return err instanceof HttpError && err.status === 401 && !err.otherOrigin && ownOrigin(err.url, spec);
}

/** Whether an answer from `url` came from the origin `spec` sends its credential to. */
function ownOrigin(url: string, spec: RequestSpec): boolean {
  try {
    return new URL(url).origin === buildUrl(spec).origin;
  } catch {
    return true;
  }
}

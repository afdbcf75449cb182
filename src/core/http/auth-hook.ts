/**
 * The auth hook of every request (Octokit's `auth.hook`, ky's afterResponse
 * retry): a request with `auth` gets the provider's credential; a 401 (thrown,
 * or returned when the caller accepts 401) asks the provider once for a new
 * credential and sends the request again with it. A streamed body cannot be
 * sent twice, so such a request is not retried.
 */
import { HttpError } from '../errors.js';
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
    if (err instanceof HttpError && err.status === 401) {
      err.credentialSource ??= auth.source;
      if (auth.login) err.credentialLogin ??= auth.login;
    }
    return err;
  };
  let res: HttpResponse;
  try {
    res = await send(first);
  } catch (err) {
    if (retry && err instanceof HttpError && err.status === 401) {
      const next = await retry(used);
      if (next) return send({ ...spec, credential: next }).catch((e: unknown) => Promise.reject(refused(e)));
    }
    throw refused(err);
  }
  if (retry && res.status === 401) {
    const next = await retry(used);
    if (next) {
      await res.dump();
      return send({ ...spec, credential: next });
    }
  }
  return res;
}

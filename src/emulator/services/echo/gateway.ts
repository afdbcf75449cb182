/**
 * The API gateway in front of the echo backend: API-key check for POST /echo,
 * JWT authentication for /auth/info/*, errors in the gateway's shape, and the
 * backend itself ({message} echo, {id, email} from the verified claims).
 */
import { Echo } from '../../../shared/constants.js';
import type { GatewayErrorBody } from '../../../shared/echo.js';
import type { EmuRequest, EmuResponse, ErrorShape, Router } from '../../router.js';
import type { JwksCache } from './jwks-cache.js';
import { JwtFailure, matchRequirement, parseJwt, UnknownKidFailure, verifySignature, type TokenRequirement } from './jwt-validate.js';
import type { EchoState, TokenDefinition } from './state.js';

/** google.rpc.Code values the gateway answers with. */
const Code = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, INTERNAL: 13, UNAUTHENTICATED: 16 } as const;

/** The google.rpc.Code of an HTTP status, as the gateway maps one (its Status::CanonicalCode). */
function canonicalCode(status: number): number {
  const known: Record<number, number> = {
    400: Code.INVALID_ARGUMENT,
    401: Code.UNAUTHENTICATED,
    403: Code.PERMISSION_DENIED,
    404: Code.NOT_FOUND,
    429: Code.RESOURCE_EXHAUSTED,
  };
  return known[status] ?? (status >= 500 ? Code.INTERNAL : 9) /* FAILED_PRECONDITION */;
}

/**
 * The challenge the gateway adds to every 401 and 403 it writes itself
 * (RFC 6750 section 3): plain `Bearer` when the request carried no token,
 * `Bearer, error="invalid_token"` when it did.
 */
function challenge(token: string | undefined): Record<string, string> {
  return { 'www-authenticate': token ? 'Bearer, error="invalid_token"' : 'Bearer' };
}

export const GatewayMessages = {
  unregistered:
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  badKey: 'API key not valid. Please pass a valid API key.',
  missingToken: 'Missing or invalid credentials',
  noMethod: 'Method does not exist.',
  noCors: 'The service does not allow CORS traffic.',
} as const;

/** The gateway's error body: a google.rpc.Status with one DebugInfo naming the check that refused. */
export function gatewayErrorBody(code: number, message: string, detail: string): GatewayErrorBody {
  return { code, message, details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail }] };
}

export function sendGatewayError(res: EmuResponse, status: number, code: number, message: string, detail: string, headers: Record<string, string> = {}): void {
  res.json(status, gatewayErrorBody(code, message, detail), headers);
}

/**
 * The gateway's answers for what no operation of the API description
 * matches: a pre-flight (`OPTIONS`; the description does not allow CORS) is a
 * 403 code 7 with a challenge, any other method or path a 404 code 5
 * `Method does not exist.`; other errors its shape with the status's code.
 */
export const gatewayErrorShape: ErrorShape = (status, message, req) => {
  if (status === 404 || status === 405) {
    if (req.method === 'OPTIONS') {
      return { status: 403, body: gatewayErrorBody(Code.PERMISSION_DENIED, GatewayMessages.noCors, 'service_control'), headers: challenge(undefined) };
    }
    return { status: 404, body: gatewayErrorBody(Code.NOT_FOUND, GatewayMessages.noMethod, 'service_control') };
  }
  return { body: gatewayErrorBody(canonicalCode(status), message, 'application') };
};

/** The API key as the gateway looks for it: query `key`, query `api_key`, header `x-api-key`. */
export function findApiKey(req: EmuRequest): string | undefined {
  return req.query.get('key') ?? req.query.get('api_key') ?? req.header('x-api-key') ?? undefined;
}

/** The bearer token: `Authorization: Bearer`, else query `access_token`. */
export function findBearerToken(req: EmuRequest): string | undefined {
  const auth = req.header('authorization');
  if (auth !== undefined) return /^Bearer ./.test(auth) ? auth.slice(7) : undefined;
  return req.query.get('access_token') ?? undefined;
}

/** Which security definitions each auth-info method accepts. */
export const METHOD_DEFINITIONS: Record<string, TokenDefinition[]> = {
  [Echo.paths.vendorJwt]: ['vendor_jwt', 'platform_default_service_account', 'service_account'],
  [Echo.paths.vendorIdToken]: ['vendor_id_token'],
  [Echo.paths.appPlatform]: ['app_platform_idp'],
};

export class Gateway {
  constructor(
    private readonly state: EchoState,
    private readonly cache: JwksCache,
    private readonly nowSec: () => number,
  ) {}

  register(router: Router): void {
    router.post(Echo.paths.echo, (req, res) => this.#echo(req, res));
    for (const path of Object.keys(METHOD_DEFINITIONS)) {
      router.get(path, (req, res) => this.#authInfo(path, req, res));
    }
    for (const prefix of [Echo.paths.echo, '/auth/info']) router.errorShape(prefix, gatewayErrorShape);
  }

  async #echo(req: EmuRequest, res: EmuResponse): Promise<void> {
    const key = findApiKey(req);
    // No token is looked for on this method: the challenge is the plain one.
    if (!key) return sendGatewayError(res, 401, Code.UNAUTHENTICATED, GatewayMessages.unregistered, 'service_control', challenge(undefined));
    if (!this.state.apiKeys.has(key)) return sendGatewayError(res, 400, Code.INVALID_ARGUMENT, GatewayMessages.badKey, 'service_control');
    // The backend.
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return res.json(400, { code: 400, message: 'The request body must be JSON: {"message": "..."}' });
    }
    const message = (body as { message?: unknown } | null)?.message;
    if (!body || typeof body !== 'object' || Array.isArray(body) || (message !== undefined && typeof message !== 'string')) {
      return res.json(400, { code: 400, message: 'The request body must be a JSON object with a string "message"' });
    }
    res.json(200, { message: message ?? '' });
  }

  async #authInfo(path: string, req: EmuRequest, res: EmuResponse): Promise<void> {
    try {
      const jwt = await this.authenticate(path, findBearerToken(req));
      res.json(200, { id: jwt.subject, email: jwt.email });
    } catch (err) {
      if (!(err instanceof JwtFailure)) throw err;
      const token = err.reason === GatewayMessages.missingToken ? undefined : findBearerToken(req);
      sendGatewayError(res, err.status, err.status === 403 ? Code.PERMISSION_DENIED : Code.UNAUTHENTICATED, err.message, 'auth', challenge(token));
    }
  }

  /** The whole check for one method; throws JwtFailure. */
  async authenticate(path: string, token: string | undefined): Promise<ReturnType<typeof parseJwt>> {
    if (!token) throw new JwtFailure(401, GatewayMessages.missingToken);
    const jwt = parseJwt(token, this.nowSec());
    const requirement = matchRequirement(jwt, this.requirements(path));
    const first = await this.cache.get(requirement.jwksUri);
    try {
      await verifySignature(jwt, first.doc);
    } catch (err) {
      // A kid the cached keys lack: the keys may have rotated; fetch once more.
      if (!(err instanceof UnknownKidFailure) || first.fetched) throw err;
      const again = await this.cache.get(requirement.jwksUri, true);
      await verifySignature(jwt, again.doc);
    }
    return jwt;
  }

  requirements(path: string): TokenRequirement[] {
    return (METHOD_DEFINITIONS[path] ?? []).map((name) => {
      const d = this.state.definition(name);
      return { name, issuer: d.issuer, jwksUri: this.state.jwksUri(name), audiences: d.audiences };
    });
  }
}

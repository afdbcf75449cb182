/**
 * Who a bearer token names, read from its claims when it is a JWT. Nothing is
 * verified: Lanyard is not the token's audience, and the server judges the
 * token on each request; this only says what the token claims, for display
 * (`auth status`). An opaque token names nobody.
 */

export interface TokenIdentity {
  /** The signed-in user's name: `upn`, else `preferred_username`, `unique_name`, `email`. */
  readonly user?: string;
  /** `sub`: the subject the token was issued for (a user, or a client acting for itself). */
  readonly subject?: string;
  /** The client the token was issued to: `client_id`, else `azp`, `appid`. */
  readonly client?: string;
  /** `exp`, in epoch ms. */
  readonly expiresAt?: number;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The claims of a compact JWS, or undefined when the token is not one. */
export function tokenClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !/^[\w-]+$/.test(parts[1]!)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** What a token says about who it is for; undefined for an opaque token. */
export function tokenIdentity(token: string): TokenIdentity | undefined {
  const c = tokenClaims(token);
  if (!c) return undefined;
  const user = text(c.upn) ?? text(c.preferred_username) ?? text(c.unique_name) ?? text(c.email);
  const subject = text(c.sub);
  const client = text(c.client_id) ?? text(c.azp) ?? text(c.appid);
  const expiresAt = typeof c.exp === 'number' && Number.isFinite(c.exp) ? c.exp * 1000 : undefined;
  return {
    ...(user ? { user } : {}),
    ...(subject ? { subject } : {}),
    ...(client ? { client } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

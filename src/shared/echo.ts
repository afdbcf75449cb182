/**
 * Echo API wire constants (spec part a), shared by the client and the
 * emulator. Names and values only: the client and the emulator each parse and
 * validate on their own.
 */
import { Echo } from './constants.js';

/** Security definition names of the API description. */
export type EchoSecurityDefinition = 'api_key' | 'vendor_jwt' | 'platform_default_service_account' | 'service_account' | 'vendor_id_token' | 'app_platform_idp';

/** The token schemes as the CLI names them (`--scheme`). */
export const EchoTokenSchemes = {
  'vendor-jwt': { definition: 'vendor_jwt', path: Echo.paths.vendorJwt },
  'service-account': { definition: 'service_account', path: Echo.paths.vendorJwt },
  'default-service-account': { definition: 'platform_default_service_account', path: Echo.paths.vendorJwt },
  'id-token': { definition: 'vendor_id_token', path: Echo.paths.vendorIdToken },
  'app-platform': { definition: 'app_platform_idp', path: Echo.paths.appPlatform },
} as const satisfies Record<string, { definition: EchoSecurityDefinition; path: string }>;

export type EchoTokenScheme = keyof typeof EchoTokenSchemes;

export function isEchoTokenScheme(s: string): s is EchoTokenScheme {
  return Object.hasOwn(EchoTokenSchemes, s);
}

/** `{message}`: request and response of POST /echo. */
export interface EchoMessage {
  message: string;
}

/** Response of GET /auth/info/*. */
export interface AuthInfoResponse {
  id: string;
  email: string;
}

/** The gateway's error body: a google.rpc.Status-like object. */
export interface GatewayErrorBody {
  code: number;
  message: string;
  details?: Array<Record<string, unknown>>;
}

/** The extension names of the token security definitions. */
export const EchoExtensions = {
  issuer: 'x-vendor-issuer',
  jwksUri: 'x-vendor-jwks_uri',
  audiences: 'x-vendor-audiences',
} as const;

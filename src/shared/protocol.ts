/**
 * Wire shapes of context-protocol authorization (RFC 8414, 7591, 6749/OAuth
 * 2.1, 9728) and of JSON-RPC 2.0. Types and constants only: the client and the
 * emulator each parse and validate them on their own.
 */

/** RFC 8414 authorization server metadata (the fields Lanyard reads). */
export interface AuthorizationServerMetadataWire {
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_signing_alg_values_supported?: string[];
  /** Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document). */
  client_id_metadata_document_supported?: boolean;
  /** RFC 9207. */
  authorization_response_iss_parameter_supported?: boolean;
  /** RFC 9449 §5.1: the server issues DPoP-bound tokens and accepts proofs signed with these. */
  dpop_signing_alg_values_supported?: string[];
  /** RFC 8628 §4. */
  device_authorization_endpoint?: string;
}

/** RFC 9728 protected resource metadata. */
export interface ProtectedResourceMetadataWire {
  resource?: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
}

/** RFC 7591 client metadata / registration response. */
export interface ClientRegistrationWire {
  client_id?: string;
  client_secret?: string;
  client_id_issued_at?: number;
  client_secret_expires_at?: number;
  client_name?: string;
  redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
  scope?: string;
  application_type?: string;
}

/** OAuth token endpoint success or error body. */
export interface TokenResponseWire {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  error?: string;
  error_description?: string;
}

export interface JsonRpcRequestWire {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: unknown;
}

export interface JsonRpcResponseWire {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Grant types and client authentication methods by their wire names. */
export const OAuthGrant = {
  authorizationCode: 'authorization_code',
  refreshToken: 'refresh_token',
  clientCredentials: 'client_credentials',
  /** RFC 8628 §3.4: the device authorization grant. */
  deviceCode: 'urn:ietf:params:oauth:grant-type:device_code',
  /** RFC 7523 §2.1: an assertion (here an identity assertion from the user's identity provider) as the grant. */
  jwtBearer: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
  /** RFC 8693 token exchange (at the identity provider). */
  tokenExchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
} as const;

/** RFC 7523 §2.2 client assertion type (private_key_jwt). */
export const JwtBearerAssertionType = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Token types of the identity assertion authorization grant (cross-app access). */
export const TokenTypes = {
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  idJag: 'urn:ietf:params:oauth:token-type:id-jag',
} as const;

export const ClientAuthMethods = ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'] as const;
export type ClientAuthMethod = (typeof ClientAuthMethods)[number];

/** The client name Lanyard registers under. */
export const ProtocolClientName = 'Lanyard CLI';

/**
 * Wire names of the hosting service's OAuth endpoints (spec:
 * hosting-oauth-and-rate-limits.md). Values only; the client and the emulator
 * each implement their own parsing and validation.
 */

export const HostingOAuthPath = {
  authorize: '/login/oauth/authorize',
  token: '/login/oauth/access_token',
  deviceCode: '/login/device/code',
  device: '/login/device',
  applications: '/settings/connections/applications',
  /** Where a user's personal tokens are listed and revoked. */
  tokens: '/settings/tokens',
  signup: '/signup',
  logout: '/logout',
} as const;

/** Error codes of the token endpoint (device flow table, plus the code and refresh grants). */
export const OAuthErrorCode = {
  authorizationPending: 'authorization_pending',
  slowDown: 'slow_down',
  expiredToken: 'expired_token',
  tokenExpired: 'token_expired',
  unsupportedGrantType: 'unsupported_grant_type',
  incorrectClientCredentials: 'incorrect_client_credentials',
  incorrectDeviceCode: 'incorrect_device_code',
  accessDenied: 'access_denied',
  deviceFlowDisabled: 'device_flow_disabled',
  badVerificationCode: 'bad_verification_code',
  redirectUriMismatch: 'redirect_uri_mismatch',
  badRefreshToken: 'bad_refresh_token',
  unsupportedParameter: 'unsupported_parameter',
} as const;

/** Installable apps: lifetimes of user tokens and their refresh tokens. */
export const InstallableTokens = {
  accessTokenLifetimeSec: 8 * 3600,
  refreshTokenLifetimeSec: 184 * 24 * 3600,
} as const;

/**
 * Lanyard's core library, as other programs import it (`lanyard-cli`): the
 * services' clients, the sign-in flows, the credential stores, the rate-limit
 * policy and the error family. It never writes to a terminal, exits the
 * process or reads the environment: a program hands it its ports (a
 * {@link Clock}, a {@link CredentialStore}, an {@link HttpClient}) and hears
 * about progress through callbacks.
 *
 * This file alone decides the public surface; `docs/api-report/lanyard-cli.api.md` is its
 * report (`npm run api:update` regenerates it after a deliberate change).
 *
 * @packageDocumentation
 * @module lanyard-cli
 */

// Ports and their standard adapters
export type { Browser, Clock, CredentialStore, RandomBytes, TraceSink } from './deps.js';
export { systemClock } from './system-clock.js';

// Credentials: one provider shape for every service; the cross-process lock
export { type CredentialProvider, fixedCredential } from './auth/provider.js';
export { type CredentialLock, FileLock, type FileLockOptions, noLock } from './credentials/lock.js';
export { envTokenSource, HostingAuth, type HostingAuthOptions } from './hosting/auth.js';
export type { HostingCredentialSource } from './hosting/credential.js';
export { protocolAuth } from './protocol/credential.js';

// Errors
export {
  AuthRequiredError,
  CancelledError,
  ConfigError,
  CredentialStoreError,
  ERROR_CODES,
  type ErrorCode,
  type LanyardErrorOptions,
  type Remedy,
  type ServiceName,
  HttpError,
  LanyardError,
  NetworkError,
  OAuthError,
  RateLimitError,
  TimeoutError,
  ValidationError,
} from './errors.js';
// The table ServiceName is the keys of (a value: a type-only export of a const rolls up as a value that is not there).
export { SERVICE_TRAITS } from '../shared/services.js';
/** A server's answer with a field of the wrong type (checked at the edge against the wire types). */
export { WireTypeError } from './wire/check.js';

// HTTP
export { HttpClient } from './http/client.js';
export { headerLines } from './http/stream.js';
export type {
  AnswerHead,
  Credential,
  CredentialAnswer,
  CredentialRequest,
  HttpClientOptions,
  HttpResponse,
  Preconnected,
  QueryValue,
  RequestSpec,
  ResponseHook,
  Timeouts,
} from './http/types.js';
export {
  CONTENT_CREATING_WINDOWS,
  credentialIdentity,
  DEFAULT_PACING_MARGIN_MS,
  FilePacing,
  holdsPacing,
  isSharedPacing,
  MemoryPacing,
} from './http/pacing.js';
export type { FilePacingOptions, HoldingPacingStore, PacingScope, PacingStore, PacingWindow, SharedBudget, SharedPacingStore } from './http/pacing.js';
export { RedisPacing } from './http/redis-pacing.js';
export type { RedisPacingOptions } from './http/redis-pacing.js';
export { proxySettings, ProxyError } from './http/proxy.js';
export type { ProxySettings } from './http/proxy.js';
export { TlsError } from './http/trust.js';
export type { TrustSettings } from './http/trust.js';
export { InsecureTransportError, isLoopbackHost } from './http/plain-http.js';

// Rate limits
export { classifyRateLimit, decideRateLimit, defaultRateLimitPolicy } from './ratelimit/policy.js';
export type { RateLimitClassification, RateLimitDecision, RateLimitKind, RateLimitPolicy } from './ratelimit/policy.js';
export { parseRateLimitHeaders } from './ratelimit/headers.js';
export type { HeaderBag, RateLimitState } from './ratelimit/headers.js';

// Credential stores
export { FileCredentialStore, type FileContents, type FileStoreOptions } from './credentials/file-store.js';
export { KeychainCredentialStore } from './credentials/keychain-store.js';
export type { KeychainStoreOptions } from './credentials/keychain-store.js';
export type { KeychainBinding, KeychainEntry } from './credentials/keychain-binding.js';
export { startKeychainOpen } from './credentials/keychain-open.js';
export type { KeychainOpening, KeychainOpenOptions, KeychainOpenResult } from './credentials/keychain-open.js';
export { MemoryCredentialStore } from './credentials/memory-store.js';
export { openCredentialStore } from './credentials/open.js';
export type { OpenCredentialStoreOptions } from './credentials/open.js';

// Code host: sign-in and API
export { OAuthErrorCode, OAuthResponseError } from './hosting/oauth.js';
export type { DeviceAuthorization, TokenSet } from './hosting/oauth.js';
export type { OAuthFields } from './auth/oauth-body.js';
export { runDeviceFlow } from './hosting/device-flow.js';
export { pollForDeviceToken } from './auth/device-poll.js';
export type { DeviceFlowOptions } from './hosting/device-flow.js';
export type { PollEvent, PollOptions } from './auth/device-poll.js';
export { authorizeUrl, runWebFlow } from './hosting/web-flow.js';
export type { AuthorizeUrlOptions, WebFlowOptions } from './hosting/web-flow.js';
export { chooseSwitchTarget, findAccount, HostingAccounts, recordFromTokenSet } from './hosting/accounts.js';
export type { AccountReadOptions, HostingTokenRecord, StoredAccount, SwitchChoice, TokenOrigin } from './hosting/accounts.js';
export { refreshRecord } from './hosting/refresh.js';
export { ssoHook } from './hosting/sso.js';
export type { RefreshOptions } from './hosting/refresh.js';
export { fetchUser } from './hosting/user.js';
export type { HostingUser } from './hosting/user.js';
export { fetchRateLimit } from './hosting/rate-limit.js';
export type { RateLimitOverview, ResourceBudget } from './hosting/rate-limit.js';

// Echo API
export { fetchAuthInfo, sendEcho } from './echo/api.js';
export type { EchoCall } from './echo/api.js';
export { apiKeyCredential, resolveApiKey } from './echo/credentials.js';
export type { ResolvedApiKey } from './echo/credentials.js';
export type { AuthInfoResponse, EchoMessage } from '../shared/echo.js';
export { mintServiceAccountJwt, parseServiceAccountKey, readServiceAccountKeyFile } from './echo/service-account.js';
export type { ServiceAccountClaims, ServiceAccountClaimsInput, ServiceAccountKey } from './echo/service-account.js';

// Context-protocol servers
export { callProtocolServer } from './protocol/session.js';
export type { ElicitResult, ProtocolCallOptions, ProtocolCallResult, ProtocolSessionDeps } from './protocol/session.js';
export { authorize, currentTokens, refreshTokens } from './protocol/flow.js';
export type { AuthorizeOptions, IdentityProviderOptions, ProtocolAuthDeps } from './protocol/flow.js';
export type { ProtocolRevision } from '../shared/constants.js';
export { DPOP_ALGS, DpopNonces } from './protocol/dpop.js';
export type { DpopAlg, DpopKey } from './protocol/dpop.js';
export { ProtocolCredentials } from './protocol/store.js';
export type { StoredTokens, WorkloadTokenSource } from './protocol/store.js';
export type { TokenSet as ProtocolTokenSet } from './protocol/token.js';
export type { ClientIdentity } from './protocol/registration.js';
export type { ClientAuthMethod } from '../shared/protocol.js';
// The values of ClientAuthMethod, as a list.
export { ClientAuthMethods } from '../shared/protocol.js';
export type { BearerChallenge } from './protocol/discovery.js';
export type { JsonRpcRequestWire, JsonRpcResponseWire } from '../shared/protocol.js';

// Mailbox
export { MailboxClient, MessageNotFoundError } from './mailbox/client.js';
export type { ListedMessage, ListOptions, MailboxTarget, MessageView, StreamedBody } from './mailbox/client.js';
export { inflaterFor } from './mailbox/inflate.js';
export type { MailboxAddress, MailboxMetadata, MailboxPart } from '../shared/mailbox.js';

// Service health
export { findEvent, HealthApiError, iterateEvents } from './health/events.js';
export type { EventsQuery, PageOptions } from './health/events.js';
export { buildEventsFilter } from './health/filter.js';
export { runHealthSignIn } from './health/signin.js';
export type { HealthSignInOptions } from './health/signin.js';
export { healthCredential, listHealthTokens, resolveHealthToken } from './health/token.js';
export type { HealthTokenRecord, ResolvedHealthToken, StoredHealthToken } from './health/token.js';
export type {
  EventLevel as HealthEventLevel,
  EventSource as HealthEventSource,
  EventStatus as HealthEventStatus,
  EventSubType as HealthEventSubType,
  EventType as HealthEventType,
  HealthErrorResponse,
  HealthEvent,
  HealthEventProperties,
  HealthFaq,
  HealthImpact,
  HealthLink,
  HealthUpdate,
  ImpactedServiceRegion,
  Level as HealthLevel,
  LinkType as HealthLinkType,
  RecommendedActions as HealthRecommendedActions,
} from '../shared/health.js';
// The values of the union types above, as lists.
export {
  EventLevelValues as HealthEventLevelValues,
  EventSourceValues as HealthEventSourceValues,
  EventStatusValues as HealthEventStatusValues,
  EventSubTypeValues as HealthEventSubTypeValues,
  EventTypeValues as HealthEventTypeValues,
  LevelValues as HealthLevelValues,
  LinkTypeValues as HealthLinkTypeValues,
} from '../shared/health.js';

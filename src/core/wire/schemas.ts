/**
 * The wire types of src/shared as schemas (valibot), checked by `checkWire`
 * where each answer enters the library. Objects are loose: fields a schema
 * does not name are kept as the server sent them. Enumerations (an event's
 * status, a link's type) are checked as strings: a server may add values, and
 * what reaches a terminal goes through the CLI's sanitiser anyway. The type
 * assertions at the end keep each schema and its src/shared type in step.
 */
import * as v from 'valibot';
import type { AuthInfoResponse, EchoMessage } from '../../shared/echo.js';
import type { HealthEvent, HealthEventsPage } from '../../shared/health.js';
import type { MailboxMetadata } from '../../shared/mailbox.js';
import type { AuthorizationServerMetadataWire, ClientRegistrationWire, ProtectedResourceMetadataWire, TokenResponseWire } from '../../shared/protocol.js';

const str = v.optional(v.string());
const num = v.optional(v.number());
const bool = v.optional(v.boolean());
const strings = v.optional(v.array(v.string()));
const obj = v.optional(v.record(v.string(), v.unknown()));

// --- service health -------------------------------------------------------

const HealthUpdate = v.looseObject({ eventTags: strings, summary: str, updateDateTime: str });
const ImpactedRegion = v.looseObject({
  impactedRegion: str,
  impactedSubscriptions: strings,
  impactedTenants: strings,
  lastUpdateTime: str,
  status: str,
  updates: v.optional(v.array(HealthUpdate)),
});
const HealthImpact = v.looseObject({ impactedService: str, impactedServiceGuid: str, impactedRegions: v.optional(v.array(ImpactedRegion)) });
const HealthLink = v.looseObject({
  type: str,
  bladeName: str,
  extensionName: str,
  displayText: v.optional(v.looseObject({ localizedValue: str, value: str })),
  parameters: obj,
});

export const HealthEventSchema = v.looseObject({
  id: str,
  location: str,
  name: str,
  type: str,
  properties: v.optional(
    v.looseObject({
      additionalInformation: v.optional(v.looseObject({ message: str })),
      article: v.optional(v.looseObject({ articleContent: str, articleId: str, parameters: obj })),
      billingId: str,
      currencyType: str,
      description: str,
      duration: num,
      enableChatWithUs: bool,
      eventLevel: str,
      eventSource: str,
      eventSubType: str,
      eventTags: strings,
      eventType: str,
      externalIncidentId: str,
      faqs: v.optional(v.array(v.looseObject({ answer: str, localeCode: str, question: str }))),
      header: str,
      hirStage: str,
      impact: v.optional(v.array(HealthImpact)),
      impactMitigationTime: str,
      impactStartTime: str,
      impactType: str,
      isEventSensitive: bool,
      isHIR: bool,
      lastUpdateTime: str,
      level: str,
      links: v.optional(v.array(HealthLink)),
      newRate: num,
      oldRate: num,
      platformInitiated: bool,
      priority: num,
      reason: str,
      recommendedActions: v.optional(
        v.looseObject({ actions: v.optional(v.array(v.looseObject({ actionText: str, groupId: num }))), localeCode: str, message: str }),
      ),
      status: str,
      summary: str,
      title: str,
    }),
  ),
});

export const HealthEventsPageSchema = v.looseObject({ nextLink: v.nullish(v.string()), value: v.array(HealthEventSchema) });

// --- mailbox --------------------------------------------------------------

const Address = v.looseObject({ address: v.string(), name: v.string() });
const Addresses = v.optional(v.array(Address));

export const MailboxMetadataSchema = v.looseObject({
  labels: v.array(v.number()),
  size: v.number(),
  date: v.string(),
  subject: str,
  uri: str,
  markers: strings,
  from: Addresses,
  to: Addresses,
  cc: Addresses,
  bcc: Addresses,
  replyTo: Addresses,
  messageId: str,
  parts: v.optional(v.record(v.string(), v.looseObject({ size: v.number(), fileName: v.string(), mimeType: v.string(), contentId: str, disposition: str }))),
  textBody: str,
  htmlBody: str,
});

/** Without metadata: an array of ids; with metadata: an object keyed by id. */
export const MailboxListSchema = v.union([v.array(v.union([v.string(), v.number()])), v.record(v.string(), MailboxMetadataSchema)]);

/** GET /message/:id with adjacent: the metadata and its neighbours. */
export const MailboxAdjacentSchema = v.looseObject({ message: MailboxMetadataSchema, prev: v.nullish(v.string()), next: v.nullish(v.string()) });

export const MailboxCreatedSchema = v.looseObject({ id: v.string() });

// --- echo -----------------------------------------------------------------

export const EchoMessageSchema = v.looseObject({ message: v.string() });
export const AuthInfoSchema = v.looseObject({ id: v.string(), email: v.optional(v.string(), '') });

// --- hosting --------------------------------------------------------------

/** GET /user (the code host sends `name: null` for users without one). */
export const HostingUserSchema = v.looseObject({ login: v.optional(v.string()), id: num, name: v.nullish(v.string()) });

const Budget = v.looseObject({ limit: v.number(), used: v.number(), remaining: v.number(), reset: v.number() });
export const RateLimitSchema = v.looseObject({ resources: v.optional(v.record(v.string(), Budget)), rate: v.optional(Budget) });

// --- OAuth (hosting and protocol sign-ins) -------------------------------

/** A count of seconds: a number, or digits (form and XML answers have only text). */
const seconds = v.optional(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))]));

/** A token endpoint's answer, success or error (RFC 6749 §5.1, §5.2; the code host adds refresh_token_expires_in). */
export const TokenAnswerSchema = v.looseObject({
  access_token: str,
  token_type: str,
  expires_in: seconds,
  refresh_token: str,
  refresh_token_expires_in: seconds,
  scope: str,
  id_token: str,
  error: str,
  error_description: str,
  error_uri: str,
});

/** The code host's OAuth answers in JSON (token, device authorization or error); `scope` may come as a list. */
export const HostingOAuthAnswerSchema = v.looseObject({
  ...TokenAnswerSchema.entries,
  scope: v.optional(v.union([v.string(), v.array(v.string())])),
  device_code: str,
  user_code: str,
  verification_uri: str,
  verification_uri_complete: str,
  interval: seconds,
});

/** RFC 8628 §3.2 device authorization answer. */
export const DeviceCodeSchema = v.looseObject({
  device_code: v.string(),
  user_code: v.string(),
  verification_uri: v.string(),
  verification_uri_complete: str,
  expires_in: v.number(),
  interval: num,
});

export const AuthorizationServerMetadataSchema = v.looseObject({
  issuer: str,
  authorization_endpoint: str,
  token_endpoint: str,
  registration_endpoint: str,
  revocation_endpoint: str,
  scopes_supported: strings,
  response_types_supported: strings,
  grant_types_supported: strings,
  token_endpoint_auth_methods_supported: strings,
  code_challenge_methods_supported: strings,
  token_endpoint_auth_signing_alg_values_supported: strings,
  client_id_metadata_document_supported: bool,
  authorization_response_iss_parameter_supported: bool,
});

export const ProtectedResourceMetadataSchema = v.looseObject({
  resource: str,
  authorization_servers: strings,
  scopes_supported: strings,
  bearer_methods_supported: strings,
});

export const ClientRegistrationSchema = v.looseObject({
  client_id: str,
  client_secret: str,
  client_id_issued_at: num,
  client_secret_expires_at: num,
  client_name: str,
  redirect_uris: strings,
  grant_types: strings,
  response_types: strings,
  token_endpoint_auth_method: str,
  scope: str,
  application_type: str,
});

// --- context protocol (JSON-RPC results) ----------------------------------

const Implementation = v.looseObject({ name: str, version: str, title: str });

/** The result of initialize (and of server/discover, which names the server in `_meta`). */
export const InitializeResultSchema = v.looseObject({
  protocolVersion: str,
  capabilities: obj,
  serverInfo: v.optional(Implementation),
  instructions: str,
  _meta: v.optional(v.looseObject({ 'io.modelcontextprotocol/serverInfo': v.optional(Implementation) })),
});

export const ToolsListResultSchema = v.looseObject({
  tools: v.array(v.looseObject({ name: v.string(), title: str, description: str, inputSchema: obj })),
  nextCursor: v.nullish(v.string()),
});

/** The result schema of the methods whose results Lanyard reads; others' results pass through unchecked. */
const RPC_RESULTS: Readonly<Record<string, v.GenericSchema>> = {
  initialize: InitializeResultSchema,
  'server/discover': InitializeResultSchema,
  'tools/list': ToolsListResultSchema,
};

const RpcError = v.looseObject({ code: v.number(), message: v.string(), data: v.optional(v.unknown()) });

/** A JSON-RPC answer to `method`: its error object, and its result when Lanyard reads it. */
export function rpcAnswerSchema(method: string): v.GenericSchema {
  const result = Object.hasOwn(RPC_RESULTS, method) ? RPC_RESULTS[method]! : v.unknown();
  return v.looseObject({ result: v.optional(result), error: v.optional(RpcError) });
}

// --- each schema's output fits its src/shared type ------------------------

type Fits<Out, Wire> = [Out] extends [Wire] ? true : false;
/** A wire type with its enumerations widened to string (the schemas check them as strings). */
type Widened<T> = T extends string ? string : T extends readonly (infer U)[] ? Widened<U>[] : T extends object ? { [K in keyof T]: Widened<T[K]> } : T;
const fits = <_T extends true>() => undefined;
fits<Fits<v.InferOutput<typeof HealthEventsPageSchema>, Widened<Omit<HealthEventsPage, 'nextLink'>> & { nextLink?: string | null }>>();
fits<Fits<v.InferOutput<typeof HealthEventSchema>, Widened<HealthEvent>>>();
fits<Fits<v.InferOutput<typeof MailboxMetadataSchema>, MailboxMetadata>>();
fits<Fits<v.InferOutput<typeof EchoMessageSchema>, EchoMessage>>();
fits<Fits<v.InferOutput<typeof AuthInfoSchema>, AuthInfoResponse>>();
fits<Fits<v.InferOutput<typeof TokenAnswerSchema>, TokenResponseWire>>();
fits<Fits<v.InferOutput<typeof AuthorizationServerMetadataSchema>, AuthorizationServerMetadataWire>>();
fits<Fits<v.InferOutput<typeof ProtectedResourceMetadataSchema>, ProtectedResourceMetadataWire>>();
fits<Fits<v.InferOutput<typeof ClientRegistrationSchema>, ClientRegistrationWire>>();

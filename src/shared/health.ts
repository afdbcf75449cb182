/**
 * Wire types and enumerations of the service-health events API (spec part b of
 * mailbox-and-service-health.md). Values and types only: the client and the
 * emulator each parse and validate on their own.
 */

export const EventLevelValues = ['Critical', 'Error', 'Warning', 'Informational'] as const;
export const LevelValues = ['Critical', 'Warning'] as const;
export const EventSourceValues = ['ResourceHealth', 'ServiceHealth'] as const;
export const EventStatusValues = ['Active', 'Resolved'] as const;
export const EventSubTypeValues = [
  'Retirement',
  'ForeignExchangeRateChange',
  'Underbilling',
  'Overbilling',
  'PriceChanges',
  'TaxChanges',
  'MeterIDChanges',
  'UnauthorizedPartyAbuse',
] as const;
export const EventTypeValues = ['ServiceIssue', 'PlannedMaintenance', 'HealthAdvisory', 'RCA', 'EmergingIssues', 'SecurityAdvisory', 'Billing'] as const;
export const LinkTypeValues = ['Button', 'Hyperlink'] as const;
export const EventTagValues = ['Action Recommended', 'False Positive', 'Preliminary PIR', 'Final PIR'] as const;

export type EventLevel = (typeof EventLevelValues)[number];
export type Level = (typeof LevelValues)[number];
export type EventSource = (typeof EventSourceValues)[number];
export type EventStatus = (typeof EventStatusValues)[number];
export type EventSubType = (typeof EventSubTypeValues)[number];
export type EventType = (typeof EventTypeValues)[number];
export type LinkType = (typeof LinkTypeValues)[number];

export interface HealthUpdate {
  eventTags?: string[];
  summary?: string;
  updateDateTime?: string;
}

export interface ImpactedServiceRegion {
  impactedRegion?: string;
  impactedSubscriptions?: string[];
  impactedTenants?: string[];
  lastUpdateTime?: string;
  status?: EventStatus;
  updates?: HealthUpdate[];
}

export interface HealthImpact {
  impactedService?: string;
  impactedServiceGuid?: string;
  impactedRegions?: ImpactedServiceRegion[];
}

export interface HealthLink {
  type?: LinkType;
  bladeName?: string;
  extensionName?: string;
  displayText?: { localizedValue?: string; value?: string };
  parameters?: Record<string, unknown>;
}

export interface HealthFaq {
  answer?: string;
  localeCode?: string;
  question?: string;
}

export interface RecommendedActions {
  actions?: Array<{ actionText?: string; groupId?: number }>;
  localeCode?: string;
  message?: string;
}

/** `properties` of an event. The vendor support switch is named `enable<Vendor>Support` on the wire. */
export interface HealthEventProperties {
  additionalInformation?: { message?: string };
  article?: { articleContent?: string; articleId?: string; parameters?: Record<string, unknown> };
  billingId?: string;
  currencyType?: string;
  description?: string;
  duration?: number;
  enableChatWithUs?: boolean;
  eventLevel?: EventLevel;
  eventSource?: EventSource;
  eventSubType?: EventSubType;
  eventTags?: string[];
  eventType?: EventType;
  externalIncidentId?: string;
  faqs?: HealthFaq[];
  header?: string;
  hirStage?: string;
  impact?: HealthImpact[];
  impactMitigationTime?: string;
  impactStartTime?: string;
  impactType?: string;
  isEventSensitive?: boolean;
  isHIR?: boolean;
  lastUpdateTime?: string;
  level?: Level;
  links?: HealthLink[];
  newRate?: number;
  oldRate?: number;
  platformInitiated?: boolean;
  priority?: number;
  reason?: string;
  recommendedActions?: RecommendedActions;
  status?: EventStatus;
  summary?: string;
  title?: string;
  [vendorField: string]: unknown;
}

export interface HealthEvent {
  id?: string;
  location?: string;
  name?: string;
  type?: string;
  properties?: HealthEventProperties;
}

/** The list response. */
export interface HealthEventsPage {
  nextLink?: string;
  value: HealthEvent[];
}

/** Body of every non-200 response: flat, all strings. */
export interface HealthErrorResponse {
  code: string;
  message: string;
  details?: string;
}

/** Query parameter names of the list operation. */
export const HealthQuery = {
  apiVersion: 'api-version',
  filter: '$filter',
  queryStartTime: 'queryStartTime',
  skipToken: '$skipToken',
} as const;

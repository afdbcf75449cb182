/**
 * Seed data of the health emulator: the published example plus generated
 * events covering every eventType, eventSubType, status, eventLevel, level,
 * sensitive and HIR events, several impacted regions, and enough events
 * inside the default three-day window for several pages.
 */
import {
  EventLevelValues,
  EventSourceValues,
  EventTypeValues,
  EventTagValues,
  type EventLevel,
  type EventStatus,
  type EventSubType,
  type EventType,
  type HealthEvent,
  type HealthImpact,
} from '../../../shared/health.js';
import { PUBLISHED_EXAMPLE } from './published-example.js';

export const SEED = {
  subscriptionId: '6f1c2a4e-0b7d-4c1e-9a55-3d2b8e7f9a10',
  /** The subscription of the published example request (its literal value). */
  exampleSubscriptionId: 'subscriptionId',
  vendor: 'Microsoft',
  clientId: 'a7f4c0de-1a2b-4c3d-8e9f-lanyardhealth',
  user: { login: 'ada@contoso.example', password: 'health-pass', name: 'Ada Lovelace' },
  /** A user without access to any subscription (403). */
  guest: { login: 'guest@fabrikam.example', password: 'guest-pass', name: 'Guest User' },
  /** The directory (tenant) of the emulated users, and the issuer and audience of the tokens signed in users get. */
  tenantId: '72f9886e-1c4b-4d1e-9c0a-5e6d7f8a9b0c',
  issuer: 'https://sts.emulator.example',
  audience: 'https://management.emulator.example/',
  /** A long-lived token of the default user, so scripts work without the browser flow. */
  token: 'emu-health-ada-0123456789abcdef',
  tokenLifetimeSec: 3599,
  pageSize: 10,
  generatedInWindow: 42,
  generatedOld: 6,
  tenantEvents: 7,
} as const;

const SERVICES = [
  'Virtual Machines',
  'Storage',
  'App Service',
  'SQL Database',
  'Azure Kubernetes Service (AKS)',
  'Key Vault',
  'Cosmos DB',
  "Customer's Lockbox",
  'Azure Front Door',
  'Azure Monitor',
];
const REGIONS = ['West US', 'East US', 'West Europe', 'North Europe', 'Southeast Asia', 'Japan East', 'UK South', 'Global'];
const BILLING_SUBTYPES: EventSubType[] = ['ForeignExchangeRateChange', 'Underbilling', 'Overbilling', 'PriceChanges', 'TaxChanges', 'MeterIDChanges'];
const HOUR = 3_600_000;

/** Priority per the spec's ordering: type group, then level, then active above resolved (0–23). */
export function priorityOf(type: EventType | undefined, level: EventLevel | undefined, status: EventStatus | undefined): number {
  const t = type === 'ServiceIssue' ? 0 : type === 'PlannedMaintenance' ? 1 : 2;
  const l = Math.max(0, EventLevelValues.indexOf(level ?? 'Informational'));
  return t * 8 + l * 2 + (status === 'Resolved' ? 1 : 0);
}

/** `2025-05-13T15:43:48.1203530Z`: seven fraction digits, as the service writes them. */
export const iso7 = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, (_, f: string) => `.${f}0000Z`);

function trackingId(i: number): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
  let n = (i + 7) * 7919;
  let s = '';
  for (let k = 0; k < 3; k++) {
    s += alphabet[n % alphabet.length];
    n = Math.floor(n / alphabet.length) + 13;
  }
  return `LY${String(i).padStart(2, '0')}-${s}`;
}

interface GenOptions {
  i: number;
  subscriptionId: string;
  vendor: string;
  lastUpdateMs: number;
  subType?: EventSubType;
}

/** The word of an event type in titles and summaries. */
const TITLE_WORDS: Record<EventType, string> = {
  ServiceIssue: 'Service issue',
  PlannedMaintenance: 'Planned maintenance',
  HealthAdvisory: 'Advisory',
  RCA: 'Post-incident review',
  EmergingIssues: 'Emerging issue',
  SecurityAdvisory: 'Security advisory',
  Billing: 'Billing update',
};

/** What the parts of a generated event are made from (all deterministic in its index). */
interface Basis {
  o: GenOptions;
  i: number;
  type: EventType;
  eventLevel: EventLevel;
  status: EventStatus;
  name: string;
  mainService: string;
  mainRegion: string;
  titleWord: string;
  summary: string;
}

/** One generated event; deterministic in its index. */
export function generateEvent(o: GenOptions): HealthEvent {
  const { i } = o;
  const type = EventTypeValues[i % EventTypeValues.length]!;
  const status: EventStatus = i % 3 === 2 ? 'Resolved' : 'Active';
  const impact = impactOf(o, status);
  const mainService = impact[0]!.impactedService!;
  const mainRegion = impact[0]!.impactedRegions![0]!.impactedRegion!;
  const titleWord = TITLE_WORDS[type];
  const summary = `${titleWord} affecting ${mainService} in ${mainRegion}. More information will be provided as it is known.`;
  const b: Basis = {
    o,
    i,
    type,
    eventLevel: EventLevelValues[i % EventLevelValues.length]!,
    status,
    name: trackingId(i),
    mainService,
    mainRegion,
    titleWord,
    summary,
  };
  const props: HealthEvent['properties'] = {
    ...textOf(b),
    ...severityOf(b),
    ...timesOf(b),
    ...portalFieldsOf(b),
    impact,
    links: linksOf(o.vendor, b.name),
    recommendedActions: {
      message: 'Recommended actions',
      localeCode: 'en',
      actions: [
        { actionText: `Check the health of your ${mainService} resources`, groupId: 1000 + i },
        { actionText: 'Set up service health alerts', groupId: 2000 + i },
      ],
    },
    faqs: i % 3 === 0 ? [{ question: 'Do I need to do anything?', answer: 'No action is needed unless an action is recommended.', localeCode: 'en' }] : [],
    ...(type === 'Billing'
      ? { billingId: `BILL-${4000 + i}`, currencyType: ['USD', 'EUR', 'GBP'][i % 3]!, oldRate: 1 + i / 100, newRate: 1.05 + i / 100 }
      : {}),
  };
  return {
    id: `/providers/${o.vendor}.ResourceHealth/events/${b.name}`,
    name: b.name,
    type: `/providers/${o.vendor}.ResourceHealth/events`,
    properties: props,
  };
}

/** The services and regions an event impacts, each region with its updates. */
function impactOf(o: GenOptions, status: EventStatus): HealthImpact[] {
  const { i } = o;
  const regionCount = i % 4 === 0 ? 3 : i % 4 === 2 ? 2 : 1;
  const serviceCount = i % 6 === 0 ? 2 : 1;
  const impact: HealthImpact[] = [];
  for (let s = 0; s < serviceCount; s++) {
    const service = SERVICES[(i + s * 3) % SERVICES.length]!;
    const regions = Array.from({ length: regionCount }, (_, r) => REGIONS[(i + r * 2 + s) % REGIONS.length]!);
    impact.push({
      impactedService: service,
      impactedServiceGuid: guidFor(service),
      impactedRegions: regions.map((region, r) => {
        const updates = Array.from({ length: 1 + ((i + r) % 3) }, (_, u) => ({
          eventTags: u === 0 && status === 'Resolved' ? ['Preliminary PIR'] : u === 0 ? ['Action Recommended'] : [],
          summary: `Update ${1 + ((i + r) % 3) - u}: engineers are ${u === 0 && status === 'Resolved' ? 'confirming mitigation' : 'investigating'} ${service} in ${region}.`,
          updateDateTime: iso7(o.lastUpdateMs - u * HOUR - r * 60_000),
        }));
        return {
          impactedRegion: region,
          impactedSubscriptions: [o.subscriptionId],
          impactedTenants: [],
          lastUpdateTime: iso7(o.lastUpdateMs - r * 60_000),
          status: r === 1 && status === 'Active' ? ('Resolved' as const) : status,
          updates,
        };
      }),
    });
  }
  return impact;
}

/** What the event is and what it says: type, sub-type, source, status, title, summary, description, header. */
function textOf({ o, i, type, status, titleWord, mainService, mainRegion, summary }: Basis): HealthEvent['properties'] {
  const subType: EventSubType | undefined =
    o.subType ?? (type === 'HealthAdvisory' ? 'Retirement' : type === 'SecurityAdvisory' ? 'UnauthorizedPartyAbuse' : undefined);
  return {
    eventType: type,
    ...(subType ? { eventSubType: subType } : {}),
    eventSource: EventSourceValues[i % 2]!,
    status,
    title: `${status === 'Active' ? 'ACTIVE' : 'RESOLVED'}: ${titleWord} - ${mainService} in ${mainRegion}`,
    // Sensitive events keep their content here; the list and get blank it (see publicView), fetchEventDetails returns it.
    summary,
    description: `<p>${summary}</p>`,
    header: `Your ${mainService} resources might be impacted by this ${titleWord.toLowerCase()}`,
  };
}

/** How grave the event is: levels, sensitive, high-impact (HIR), incident id, impact type, priority. */
function severityOf({ i, type, eventLevel, status }: Basis): HealthEvent['properties'] {
  const hir = i % 8 === 1;
  return {
    level: eventLevel === 'Critical' || eventLevel === 'Error' ? 'Critical' : 'Warning',
    eventLevel,
    isEventSensitive: i % 5 === 4,
    isHIR: hir,
    ...(hir ? { hirStage: status === 'Active' ? 'active' : 'resolved' } : {}),
    externalIncidentId: `INC${100200 + i}`,
    impactType: type === 'PlannedMaintenance' ? 'Planned' : 'Unplanned',
    platformInitiated: i % 2 === 0,
    priority: priorityOf(type, eventLevel, status),
  };
}

/** Duration, reason, and when the impact started, was mitigated and last updated. */
function timesOf({ o, i, type, status }: Basis): HealthEvent['properties'] {
  return {
    duration: status === 'Resolved' ? 3 * 3600 : 0,
    reason: type === 'PlannedMaintenance' ? 'Scheduled platform update' : 'Under investigation',
    impactStartTime: iso7(o.lastUpdateMs - (2 + (i % 5)) * HOUR),
    ...(status === 'Resolved' ? { impactMitigationTime: iso7(o.lastUpdateMs - 30 * 60_000) } : {}),
    lastUpdateTime: iso7(o.lastUpdateMs),
  };
}

/** What the portal shows around it: tags, the chat and support switches, the article, additional information. */
function portalFieldsOf({ o, i, name, summary }: Basis): HealthEvent['properties'] {
  return {
    eventTags: [EventTagValues[i % EventTagValues.length]!],
    enableChatWithUs: i % 4 === 1,
    [`enable${o.vendor}Support`]: i % 4 !== 3,
    article: { articleContent: `<html>${summary}</html>`, articleId: `article-${name}`, parameters: { trackingId: name } },
    additionalInformation: { message: i % 2 ? 'Subscribe to alerts to be notified of updates.' : '' },
  };
}

/** The portal links of an event: request a root-cause analysis, sign up for updates. */
function linksOf(vendor: string, name: string): NonNullable<HealthEvent['properties']>['links'] {
  return [
    {
      type: 'Hyperlink',
      bladeName: 'RequestRCABlade',
      extensionName: `${vendor}_Azure_Health`,
      displayText: { localizedValue: 'Request RCA', value: 'Request RCA' },
      parameters: { rcaRequested: 'False', trackingId: name },
    },
    {
      type: 'Button',
      bladeName: 'AzureHealthBrowseBlade',
      extensionName: `${vendor}_Azure_Health`,
      displayText: { localizedValue: 'Sign up for updates', value: 'Sign up for updates' },
      parameters: { trackingId: name },
    },
  ];
}

function guidFor(text: string): string {
  let h = 2166136261;
  const hex: string[] = [];
  for (let k = 0; k < 4; k++) {
    for (const c of text + k) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    hex.push(h.toString(16).padStart(8, '0'));
  }
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-8${s.slice(17, 20)}-${s.slice(20, 32)}`;
}

/** The seeded events of each subscription. */
export function seedEvents(nowMs: number, vendor: string = SEED.vendor): Map<string, HealthEvent[]> {
  const main: HealthEvent[] = [];
  let billing = 0;
  const total = SEED.generatedInWindow + SEED.generatedOld;
  for (let i = 0; i < total; i++) {
    const inWindow = i < SEED.generatedInWindow;
    // In the window: one every 1.5 h (newest 20 min ago, oldest ~62 h ago). Old: 4 to 14 days back.
    const lastUpdateMs = inWindow ? nowMs - 20 * 60_000 - i * 1.5 * HOUR : nowMs - (4 + (i - SEED.generatedInWindow) * 2) * 24 * HOUR;
    const type = EventTypeValues[i % EventTypeValues.length];
    const subType = type === 'Billing' ? BILLING_SUBTYPES[billing++ % BILLING_SUBTYPES.length] : undefined;
    main.push(generateEvent({ i, subscriptionId: SEED.subscriptionId, vendor, lastUpdateMs, subType }));
  }
  const example = structuredClone(PUBLISHED_EXAMPLE.event);
  for (const imp of example.properties?.impact ?? []) for (const r of imp.impactedRegions ?? []) r.impactedSubscriptions = [SEED.subscriptionId];
  main.push(example);
  return new Map([
    [SEED.subscriptionId, main],
    [SEED.exampleSubscriptionId, [structuredClone(PUBLISHED_EXAMPLE.event)]],
  ]);
}

/**
 * The tenant's own events (the tenant-level list): impacting the tenant
 * rather than a subscription (`impactedTenants` set, `impactedSubscriptions`
 * empty), inside the default window.
 */
export function seedTenantEvents(nowMs: number, vendor: string = SEED.vendor): HealthEvent[] {
  return Array.from({ length: SEED.tenantEvents }, (_, k) => {
    const e = generateEvent({ i: 200 + k, subscriptionId: SEED.subscriptionId, vendor, lastUpdateMs: nowMs - 45 * 60_000 - k * 5 * HOUR });
    for (const imp of e.properties?.impact ?? [])
      for (const r of imp.impactedRegions ?? []) {
        r.impactedSubscriptions = [];
        r.impactedTenants = [SEED.tenantId];
      }
    return e;
  });
}

/**
 * An event as the list and get operations show it: for a sensitive event the
 * communication (summary, description, article, update summaries) is blank;
 * `fetchEventDetails` returns the stored event whole.
 */
export function publicView(e: HealthEvent): HealthEvent {
  if (!e.properties?.isEventSensitive) return e;
  const v = structuredClone(e);
  const p = v.properties!;
  p.summary = '';
  delete p.description;
  if (p.article) p.article.articleContent = '';
  for (const imp of p.impact ?? []) for (const r of imp.impactedRegions ?? []) for (const u of r.updates ?? []) u.summary = '';
  return v;
}

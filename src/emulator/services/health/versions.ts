/**
 * The published api-versions of the service-health events API the emulator
 * serves, and which operations each has. The spec documents 2025-05-01; the
 * official SDK (4.x) sends 2022-10-01 by default. Every version below returns
 * the spec's event shape (older versions simply have fewer fields; clients
 * ignore the ones they do not know).
 */
export type HealthOperation =
  /** Events_ListBySubscriptionId */
  | 'list'
  /** Event_GetBySubscriptionIdAndTrackingId */
  | 'get'
  /** Event_fetchDetailsBySubscriptionIdAndTrackingId */
  | 'fetchEventDetails'
  /** Event_fetchBilllingCommunicationDetailsBySubscriptionIdAndTrackingId */
  | 'fetchBillingCommunicationDetails'
  /** ImpactedResources_ListBySubscriptionIdAndEventId, ImpactedResources_Get */
  | 'impactedResources'
  | 'impactedResource'
  /** SecurityAdvisoryImpactedResources_ListBySubscriptionIdAndEventId */
  | 'securityAdvisoryImpactedResources'
  /** Events_ListByTenantId, Event_GetByTenantIdAndTrackingId, Event_fetchDetailsByTenantIdAndTrackingId */
  | 'tenantList'
  | 'tenantGet'
  | 'tenantFetchEventDetails'
  /** ImpactedResources_ListByTenantIdAndEventId, ImpactedResources_GetByTenantId */
  | 'tenantImpactedResources'
  | 'tenantImpactedResource'
  /** SecurityAdvisoryImpactedResources_ListByTenantIdAndEventId */
  | 'tenantSecurityAdvisoryImpactedResources'
  /** Events_ListBySingleResource */
  | 'resourceList';

const V2018: readonly HealthOperation[] = ['list', 'tenantList', 'resourceList'];
const V2022_05: readonly HealthOperation[] = [...V2018, 'get', 'tenantGet', 'impactedResources', 'impactedResource'];
/** With the security advisories' impacted resources: the official SDK 4.x, generated from 2022-10-01, has them. */
const V2022_10: readonly HealthOperation[] = [
  ...V2022_05,
  'fetchEventDetails',
  'tenantFetchEventDetails',
  'tenantImpactedResources',
  'tenantImpactedResource',
  'securityAdvisoryImpactedResources',
  'tenantSecurityAdvisoryImpactedResources',
];

export const HealthEventsApiVersions: Readonly<Record<string, readonly HealthOperation[]>> = {
  '2018-07-01-preview': V2018,
  '2018-07-01': V2018,
  '2022-05-01-preview': V2022_05,
  '2022-10-01-preview': V2022_10,
  '2022-10-01': V2022_10,
  '2023-10-01-preview': V2022_10,
  '2024-02-01': V2022_10,
  '2025-05-01': [...V2022_10, 'fetchBillingCommunicationDetails'],
};

/** Versions that have an operation. */
export function versionsWith(op: HealthOperation): string[] {
  return Object.entries(HealthEventsApiVersions)
    .filter(([, ops]) => ops.includes(op))
    .map(([v]) => v);
}

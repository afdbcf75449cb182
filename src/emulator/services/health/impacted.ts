/**
 * The resources an event impacts (`eventImpactedResource` of the published
 * description): one per impacted service and region, derived from the event
 * itself, so they stay the same across runs and follow an added event.
 * A security advisory's resources also carry `info` (key/value pairs), which
 * only `listSecurityAdvisoryImpactedResources` returns.
 */
import type { HealthEvent } from '../../../shared/health.js';

export interface ImpactedResource {
  id: string;
  name: string;
  type: string;
  properties: {
    targetResourceType?: string;
    targetResourceId?: string;
    targetRegion?: string;
    info?: Array<{ key: string; value: string }>;
  };
}

/** The resource type a service's resources have (the vendor's namespace in front). */
const RESOURCE_TYPES: Record<string, string> = {
  'Virtual Machines': 'Compute/virtualMachines',
  Storage: 'Storage/storageAccounts',
  'App Service': 'Web/sites',
  'SQL Database': 'Sql/servers',
  'Azure Kubernetes Service (AKS)': 'ContainerService/managedClusters',
  'Key Vault': 'KeyVault/vaults',
  'Cosmos DB': 'DocumentDB/databaseAccounts',
  "Customer's Lockbox": 'CustomerLockbox/requests',
  'Azure Front Door': 'Cdn/profiles',
  'Azure Monitor': 'Insights/components',
};

/** `abc-123-ghj-456`: the name form of the published examples, from a hash of the text. */
function nameOf(text: string): string {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const letters = 'abcdefghjkmnpqrstuvwxyz';
  const part = (n: number) => `${letters[n % 23]}${letters[(n >>> 5) % 23]}${letters[(n >>> 10) % 23]}-${String(n % 1000).padStart(3, '0')}`;
  return `${part(h)}-${part(Math.imul(h, 2654435761) >>> 0)}`;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * The resources `event` impacts in `subscriptionId` (every region of every
 * impact that lists the subscription, or, for a tenant's event, every region),
 * with ids under `scope` (`/subscriptions/{id}` or '' for the tenant).
 */
export function impactedResources(
  event: HealthEvent,
  o: { vendor: string; subscriptionId: string; scope: string; securityInfo?: boolean },
): ImpactedResource[] {
  const trackingId = event.name ?? '';
  const out: ImpactedResource[] = [];
  for (const imp of event.properties?.impact ?? []) {
    const service = imp.impactedService ?? 'Service';
    const type = `${o.vendor}.${RESOURCE_TYPES[service] ?? 'Resources/resources'}`;
    for (const r of imp.impactedRegions ?? []) {
      const subs = r.impactedSubscriptions ?? [];
      if (subs.length && !subs.includes(o.subscriptionId)) continue;
      const region = (r.impactedRegion ?? 'global').toLowerCase().replace(/\s+/g, '');
      const name = nameOf(`${trackingId}|${service}|${region}`);
      const targetResourceId = `/subscriptions/${o.subscriptionId}/resourceGroups/rg-${region}/providers/${type}/${slug(service)}-${region}`;
      out.push({
        id: `${o.scope}/providers/${o.vendor}.ResourceHealth/events/${trackingId}/impactedResources/${name}`,
        name,
        type: `${o.vendor}.ResourceHealth/events/impactedResources`,
        properties: {
          targetResourceType: type,
          targetResourceId,
          targetRegion: region,
          ...(o.securityInfo
            ? {
                info: [
                  { key: 'ResourceId', value: targetResourceId },
                  { key: 'Region', value: region },
                  { key: 'Advisory', value: trackingId },
                ],
              }
            : {}),
        },
      });
    }
  }
  return out;
}

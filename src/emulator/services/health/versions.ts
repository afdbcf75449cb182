/**
 * The published api-versions of the service-health events API the emulator
 * serves, and which operations each has. The spec documents 2025-05-01; the
 * official SDK (4.x) sends 2022-10-01 by default. Every version below returns
 * the spec's event shape (older versions simply have fewer fields; clients
 * ignore the ones they do not know).
 */
export type HealthOperation = 'list' | 'get' | 'fetchEventDetails';

export const HealthEventsApiVersions: Readonly<Record<string, readonly HealthOperation[]>> = {
  '2018-07-01-preview': ['list'],
  '2018-07-01': ['list'],
  '2022-05-01-preview': ['list', 'get'],
  '2022-10-01-preview': ['list', 'get', 'fetchEventDetails'],
  '2022-10-01': ['list', 'get', 'fetchEventDetails'],
  '2023-10-01-preview': ['list', 'get', 'fetchEventDetails'],
  '2024-02-01': ['list', 'get', 'fetchEventDetails'],
  '2025-05-01': ['list', 'get', 'fetchEventDetails'],
};

/** Versions that have an operation. */
export function versionsWith(op: HealthOperation): string[] {
  return Object.entries(HealthEventsApiVersions)
    .filter(([, ops]) => ops.includes(op))
    .map(([v]) => v);
}

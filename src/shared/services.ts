/**
 * The services Lanyard signs in to and calls, declared once: each one's name
 * and whether it has a credential of its own. The CLI's registry
 * (cli/services/registry.ts) holds one entry per name; the `--service`
 * choices and the option types derive from here, so a new service is one
 * line here and one entry there.
 */
export const SERVICE_TRAITS = {
  hosting: { credential: true },
  echo: { credential: true },
  mailbox: { credential: false },
  health: { credential: true },
  protocol: { credential: true },
} as const;

export type ServiceName = keyof typeof SERVICE_TRAITS;

/** The services with a credential of their own (`lanyard exec` hands it over; `auth status` lists it). */
export type CredentialService = { [K in ServiceName]: (typeof SERVICE_TRAITS)[K]['credential'] extends true ? K : never }[ServiceName];

/** Every service, in the order choices and lookups list them. */
export const SERVICE_NAMES = Object.keys(SERVICE_TRAITS) as readonly ServiceName[];

export const CREDENTIAL_SERVICES = SERVICE_NAMES.filter((s): s is CredentialService => SERVICE_TRAITS[s].credential);

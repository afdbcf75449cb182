/** Options of the `health` commands, shared by the command declarations and their run modules. */

export interface HealthQueryOptions {
  subscription?: string;
  filter?: string;
  service?: string[];
  region?: string[];
  since?: string;
  apiVersion?: string;
}

export interface HealthEventsOptions extends HealthQueryOptions {
  all?: boolean;
  new?: boolean;
  max?: string;
}

export interface HealthCheckOptions extends HealthQueryOptions {
  failIfActive?: boolean;
  impact?: 'critical' | 'error' | 'warning' | 'informational';
}

export interface HealthEventOptions extends HealthQueryOptions {}

/**
 * Resource families of `GET /rate_limit` (the code host's names): what
 * `ratelimit status|wait --resource` accept and completion offers. (`lfs` is
 * a bucket named only in x-ratelimit-resource headers, never in /rate_limit.)
 * The order is the order in which `GET /rate_limit` reports them.
 */
export const RATE_LIMIT_RESOURCES = [
  'core',
  'search',
  'graphql',
  'integration_manifest',
  'source_import',
  'code_scanning_upload',
  'code_scanning_autofix',
  'actions_runner_registration',
  'scim',
  'dependency_snapshots',
  'dependency_sbom',
  'audit_log',
  'audit_log_streaming',
  'code_search',
] as const;

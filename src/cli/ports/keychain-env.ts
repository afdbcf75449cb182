/** The keychain's settings from the environment, shared by the context and the launcher's prefetch. */

/** LANYARD_KEYCHAIN_TIMEOUT_MS when it is a positive number; else the store's default. */
export function keychainTimeoutMs(env: NodeJS.ProcessEnv): number | undefined {
  const t = Number(env.LANYARD_KEYCHAIN_TIMEOUT_MS);
  return Number.isFinite(t) && t > 0 ? t : undefined;
}

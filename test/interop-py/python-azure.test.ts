/**
 * The Azure SDK for Python's service-health client (azure-mgmt-resourcehealth,
 * Debian's python3-azure: pip's index has no Azure SDK) against the
 * emulator over HTTPS (the SDK sends bearer tokens over TLS only), with its
 * default api-version (2018-07-01) and a static bearer credential.
 */
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';
import { runPython, withPython } from './venv.js';

const ref = useInProcessEmulator({ tls: true }, { resetEach: false });

describe(
  'azure-mgmt-resourcehealth',
  withPython(() => {
    it('lists the subscription’s events, every page', { timeout: 90_000 }, async () => {
      const h = ref.emu.fixtures.health;
      const out = await runPython('resourcehealth_client.py', {
        management: ref.emu.urls.health.management,
        token: h.token,
        subscription: h.subscriptionId,
        ca: ref.emu.tls!.caFile,
      });
      expect(out.count).toBeGreaterThan(1);
      expect((out.names as string[]).every((n) => typeof n === 'string' && n.length > 0)).toBe(true);
      expect((out.types as string[]).length).toBeGreaterThan(0);
    });
  }),
);

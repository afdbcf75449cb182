/** The protocol service's admin settings: the new switches, their checks, and `defaults`. */
import { describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../../../src/emulator/clock.js';
import { createProtocolService } from '../../../../src/emulator/services/protocol/index.js';
import { DEFAULT_SETTINGS } from '../../../../src/emulator/services/protocol/state.js';

const service = () => createProtocolService({ clock: new EmulatorClock(), baseUrl: () => 'http://127.0.0.1:9', dataDir: '/nonexistent', log: () => {} });

describe('protocol settings', () => {
  it('configure takes the DPoP and device switches and checks them; defaults restores every switch', async () => {
    const s = service();
    const admin = s.admin!;
    const set = (await admin.configure!({
      dpopRequired: true,
      dpopNonce: true,
      deviceAuthorization: true,
      workloadIdentity: true,
      deviceInterval: 2,
      deviceCodeTtl: 30,
    })) as {
      settings: Record<string, unknown>;
    };
    expect(set.settings).toMatchObject({
      dpopRequired: true,
      dpopNonce: true,
      deviceAuthorization: true,
      workloadIdentity: true,
      deviceIntervalSec: 2,
      deviceCodeTtlSec: 30,
    });
    expect(() => admin.configure!({ dpop: 'yes' })).toThrow(/dpop must be true or false/);
    expect(() => admin.configure!({ deviceInterval: 0 })).toThrow(/deviceInterval/);
    expect(await admin.defaults!({})).toEqual({ settings: DEFAULT_SETTINGS });
  });
});

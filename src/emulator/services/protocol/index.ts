/** The protocol service of the emulator (routes added by its issue). */
import type { EmulatorEnv, EmulatorService } from '../../service.js';

export function createProtocolService(_env: EmulatorEnv): EmulatorService {
  return {
    name: 'protocol',
    register() {},
  };
}

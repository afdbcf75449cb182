/** The mailbox service of the emulator (routes added by its issue). */
import type { EmulatorEnv, EmulatorService } from '../../service.js';

export function createMailboxService(_env: EmulatorEnv): EmulatorService {
  return {
    name: 'mailbox',
    register() {},
  };
}

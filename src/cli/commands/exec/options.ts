/** Options of the `exec` commands, shared by the command declarations and their run modules. */

import type { CredentialService } from '../../../shared/services.js';

/** The services whose credential `exec` can hand over: those with one. */
export type ExecService = CredentialService;

export interface ExecOptions {
  service: ExecService[];
  /** A stored hosting account instead of the active one. */
  user?: string;
}

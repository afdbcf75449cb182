/** Options of the `exec` commands, shared by the command declarations and their run modules. */

export type ExecService = 'hosting' | 'echo' | 'health' | 'protocol';

export interface ExecOptions {
  service: ExecService[];
  /** A stored hosting account instead of the active one. */
  user?: string;
}

/** Options of the `mailbox` commands, shared by the command declarations and their run modules. */

/** Options every mailbox command takes. */
export interface MailboxTargetOptions {
  domain?: string;
  user?: string;
}

export interface MailboxListOptions extends MailboxTargetOptions {
  label: string;
  metadata?: boolean;
  count?: string;
  start?: string;
  oldestFirst?: boolean;
  includeBody?: boolean;
  all?: boolean;
  new?: boolean;
  checkpoint?: string;
}

export interface MailboxGetOptions extends MailboxTargetOptions {
  adjacent?: boolean;
  label?: string;
  markSeen?: boolean;
}

export interface MailboxOutputOptions extends MailboxTargetOptions {
  output?: string;
  force?: boolean;
}

export interface MailboxStoreOptions extends MailboxTargetOptions {
  label: string[];
  marker: string[];
}

export interface MailboxLabelOptions extends MailboxTargetOptions {
  add: string[];
  remove: string[];
  addMarker: string[];
  removeMarker: string[];
}

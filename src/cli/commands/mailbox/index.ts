import { Command } from 'commander';
import type { Context } from '../../context.js';

export function mailboxCommand(_ctx: Context): Command {
  return new Command('mailbox').description('list, read, store, label and delete mailbox messages');
}

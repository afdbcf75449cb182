import { Command } from 'commander';
import type { Context } from '../../context.js';

export function protocolCommand(_ctx: Context): Command {
  return new Command('protocol').description('call context-protocol servers (OAuth 2.1 with discovery, registration, PKCE)');
}

import { Command } from 'commander';
import type { Context } from '../../context.js';

export function authCommand(_ctx: Context): Command {
  return new Command('auth').description('sign in to the hosting service, context-protocol servers and the health API; manage tokens');
}

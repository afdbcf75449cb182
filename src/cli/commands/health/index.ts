import { Command } from 'commander';
import type { Context } from '../../context.js';

export function healthCommand(_ctx: Context): Command {
  return new Command('health').description('list service-health events of a subscription');
}

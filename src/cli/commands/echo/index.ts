import { Command } from 'commander';
import type { Context } from '../../context.js';

export function echoCommand(_ctx: Context): Command {
  return new Command('echo').description('call the echo sample API (API key and JWT schemes)');
}

import { Command } from 'commander';
import type { Context } from '../../context.js';

export function apiCommand(_ctx: Context): Command {
  return new Command('api').description('make an authenticated request to any endpoint');
}

import { Command } from 'commander';
import type { Context } from '../../context.js';

export function completionCommand(_ctx: Context): Command {
  return new Command('completion').description('print a shell completion script (bash, zsh, fish)');
}

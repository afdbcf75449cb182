/** A usage error (bad flags or arguments, conflicting options): exit 2. */
import { CliError } from './cli-error.js';

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super('usage', message, hint);
  }
}

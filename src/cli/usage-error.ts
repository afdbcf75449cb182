/** A usage error (bad flags or arguments, conflicting options): exit 2. */
import { LanyardError } from '../core/errors.js';

export class UsageError extends LanyardError {
  constructor(message: string, hint?: string) {
    super('usage', message, hint ? { hint } : undefined);
  }
}

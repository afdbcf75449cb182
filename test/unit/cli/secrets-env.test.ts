/** Secrets remembered from the environment (main.ts): token variables as they are used, trimmed. */
import { describe, expect, it } from 'vitest';
import { Secrets } from '../../../src/cli/terminal/terminal-text.js';

describe('Secrets.rememberEnv', () => {
  it("redacts a token variable's value without the newline a secret file leaves, so the text after a quoted token keeps its line break", () => {
    const token = 'lyp_0123456789abcdefghijklmnopqrstuvwxyz';
    const s = new Secrets();
    s.rememberEnv({ LANYARD_TOKEN: `${token}\n`, HOME: '/home/me' });
    expect(s.redact(`bad credentials: ${token}\nthe token from LANYARD_TOKEN was refused`)).toBe(
      'bad credentials: [REDACTED]\nthe token from LANYARD_TOKEN was refused',
    );
    expect(s.redact('/home/me')).toBe('/home/me');
  });
});

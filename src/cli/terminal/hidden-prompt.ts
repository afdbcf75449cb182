/** A secret typed at the terminal, never echoed (a password, a token, an API key), as gh asks for one. */
import { CancelledError } from '../../core/errors.js';
import type { IO } from '../io.js';

/**
 * Prompts on stderr and reads a line from a TTY stdin without echoing it.
 * Enter ends it, Backspace takes back a character, Ctrl-C (or the run's
 * abort) is CancelledError (exit 130, 143 on SIGTERM); Ctrl-D on an empty
 * line, or the terminal going away, is end of input: an empty answer.
 */
export async function promptHidden(ctx: { io: IO; signal: AbortSignal }, prompt: string): Promise<string> {
  const stdin = ctx.io.stdin as NodeJS.ReadStream;
  ctx.io.stderr.write(prompt);
  return await new Promise<string>((resolve, reject) => {
    let value = '';
    const raw = typeof stdin.setRawMode === 'function';
    if (raw) stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.resume();
    const done = (err?: Error) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      ctx.signal.removeEventListener('abort', onAbort);
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      ctx.io.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onAbort = () => done(new CancelledError());
    const onEnd = () => done();
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new CancelledError());
        if (ch === '\u0004' && value === '') return done();
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
}

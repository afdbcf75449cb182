/**
 * The one way commands draw a spinner: on a terminal stderr wide enough to
 * draw on, never touching standard input. ora's default (`discardStdin`) puts
 * a terminal stdin into raw mode, which turns the interrupt key into a plain
 * byte (Ctrl-C stops working) and stops a background job with SIGTTOU.
 * Elsewhere (a pipe, a file, CI, a terminal too narrow) the text is written as
 * plain lines on stderr instead, once per change. ora writes to the
 * terminal itself, past the IO's sanitiser: its text is sanitised here, and
 * its colour (the frame, the ✓) follows the IO's (`NO_COLOR`, `FORCE_COLOR=0`,
 * `--no-color`), not chalk's own reading of the environment.
 */
import type { IO } from '../io.js';
import { terminalText } from './terminal-text.js';

/** A terminal narrower than this gets plain lines: redrawing wraps (and 0 columns made ora loop). */
export const MIN_DRAW_COLUMNS = 20;

export interface Spinner {
  /** Shows `text` (starting the animation on a terminal; a line elsewhere). */
  show(text: string): void;
  /** Changes the text while it is shown; elsewhere writes it as a line only when `line` is true. */
  update(text: string, o?: { line?: boolean }): void;
  /** Ends with a ✓ line. */
  succeed(text: string): void;
  /** Removes the spinner (nothing is left on the terminal). */
  stop(): void;
  /** True when drawing on a terminal. */
  readonly live: boolean;
}

export async function createSpinner(io: IO): Promise<Spinner> {
  const width = io.stderrColumns;
  if (width < MIN_DRAW_COLUMNS) {
    let last = '';
    return {
      live: false,
      show: (t) => {
        if (t !== last) io.err((last = t));
      },
      update: (t, o) => {
        if (o?.line && t !== last) io.err((last = t));
      },
      succeed: (t) => io.err(`✓ ${t}`),
      stop: () => undefined,
    };
  }
  const color = io.color;
  const ora = (await import('ora')).default({ stream: io.stderr, isEnabled: true, discardStdin: false, color: color ? 'cyan' : false });
  return {
    live: true,
    show: (t) => {
      ora.text = terminalText(t);
      if (!ora.isSpinning) ora.start();
    },
    update: (t) => {
      ora.text = terminalText(t);
    },
    succeed: (t) => void ora.stopAndPersist({ symbol: color ? '\u001b[32m✓\u001b[39m' : '✓', text: terminalText(t) }),
    stop: () => void ora.stop(),
  };
}

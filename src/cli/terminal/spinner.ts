/**
 * The one way commands draw a spinner: on a terminal stderr wide enough to
 * draw on, never touching standard input. ora's default (`discardStdin`) puts
 * a terminal stdin into raw mode, which turns the interrupt key into a plain
 * byte (Ctrl-C stops working) and stops a background job with SIGTTOU.
 * Elsewhere (a pipe, a file, CI, a terminal too narrow) the text is written as
 * plain lines on stderr instead, once per change.
 */
import type { IO } from '../io.js';

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
  const ora = (await import('ora')).default({ stream: io.stderr, isEnabled: true, discardStdin: false });
  return {
    live: true,
    show: (t) => {
      ora.text = t;
      if (!ora.isSpinning) ora.start();
    },
    update: (t) => {
      ora.text = t;
    },
    succeed: (t) => void ora.succeed(t),
    stop: () => void ora.stop(),
  };
}

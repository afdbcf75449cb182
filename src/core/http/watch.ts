/**
 * The bounds of an exchange once it is under way — its deadline, and the
 * silence of a body being received — on a clock: the process's timers
 * (unreferenced: a bound never keeps a program alive), or a test's.
 */
import type { IncomingMessage } from 'node:http';

/** A timer of a {@link TimerClock}. */
export interface BoundTimer {
  /** Disarms it. */
  clear(): void;
  /** Starts its time again from now (armed again if it had fired). */
  refresh(): void;
}

/**
 * What a bound needs of a clock: a timer that is started again without a
 * new one and cleared without an AbortController (aborting one per exchange
 * filled Node 20's old generation on the bridge's hot path), and no reading
 * of the time (the first `performance.now()` of a process costs a
 * millisecond of start-up). The process's: `boundTimers` in system-clock.ts.
 */
export interface TimerClock {
  /** Calls `fire` after `ms`. */
  after(ms: number, fire: () => void): BoundTimer;
}

/**
 * Calls `over` once when `ms` pass without a touch(): a silence when it is
 * touched as data comes, a deadline when it never is. 0: never. clear()
 * disarms it. One timer, started again by each touch. `held`, asked when
 * the time is up: while it says so the time did not count (the silence of
 * a body its reader is not reading) and the timer starts again.
 */
export class Watch {
  #timer?: BoundTimer;

  constructor(clock: TimerClock, ms: number, over: () => void, held?: () => boolean) {
    if (ms > 0)
      this.#timer = clock.after(ms, () => {
        if (held?.()) return this.#timer?.refresh();
        this.#timer = undefined;
        over();
      });
  }

  touch(): void {
    this.#timer?.refresh();
  }

  clear(): void {
    this.#timer?.clear();
    this.#timer = undefined;
  }
}

/**
 * The bound on a body's silence: `silenceMs` while its reader waits for
 * data and none comes. Time the reader spends elsewhere (writing a chunk
 * out to a full pipe, `| less`) is not the server's silence: the time runs
 * from a read that found nothing (a blocking write holds the whole process:
 * only the read after it can say the reader is back) or from the last
 * data, and when it is up while the reader is not waiting (it took a chunk
 * and has not asked again, or unread data is buffered, or the connection is
 * paused for it, or the whole body has come), it starts again. When the
 * body is over, the socket is left as found and the exchange's deadline cleared.
 * `byCaller`: the body goes to a caller that may stop reading it (a
 * download, requestStream); only then are its reads watched — a hook on the
 * response's `read` that costs every answer memory and time (a bridge's
 * thousand calls: +5 MiB of peak RSS, +5 % of time), so a body the client
 * reads itself (JSON, a protocol stream it consumes as it comes) counts its
 * silence from the last data, paused or buffered time excepted.
 */
export function watchBody(
  res: IncomingMessage,
  clock: TimerClock,
  silenceMs: number,
  stalled: (ms: number) => Error,
  deadline: { clear(): void },
  byCaller = false,
): void {
  const socket = res.socket;
  // Whether the reader asked last time and got nothing (a reader in flowing mode asks by flowing).
  let asked = true;
  const waiting = () => (asked || res.readableFlowing === true) && res.readableLength === 0 && !res.complete && !socket.isPaused();
  const silence = new Watch(
    clock,
    silenceMs,
    () => res.destroy(stalled(silenceMs)),
    () => !waiting(),
  );
  const touch = () => silence.touch();
  socket.on('data', touch);
  if (byCaller) watchReads(res, silence, (a) => (asked = a));
  // The socket may go back to the pool: no timer, no listener left on it.
  res.once('close', () => {
    socket.off('data', touch);
    silence.clear();
    deadline.clear();
  });
}

/** Tells `asked` whether the caller's last read found nothing (it waits), and restarts `silence` then: the caller is back. */
function watchReads(res: IncomingMessage, silence: Watch, asked: (a: boolean) => void): void {
  // A reader piping the body pauses it while its destination is full.
  res.on('pause', () => asked(false));
  // read(0) is the stream filling its own buffer; any other read is its reader's.
  const read = res.read;
  res.read = function (this: IncomingMessage, n?: number) {
    const chunk: unknown = read.call(this, n);
    if (n !== 0) {
      asked(chunk === null);
      if (chunk === null) silence.touch();
    }
    return chunk;
  };
}

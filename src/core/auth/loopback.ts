/**
 * The loopback redirect receiver of browser sign-ins: a one-shot HTTP listener
 * on 127.0.0.1 (random port), path `/callback`. It accepts exactly one
 * callback whose `state` matches and closes once the browser has its answer.
 * A refused callback is answered at once; an accepted one is answered when
 * the flow has finished with it ({@link LoopbackCallback.finish}: signed in,
 * or failed and why), or, past `answerWithinMs`, that the sign-in is
 * finishing in the terminal. For flows that return in the URL fragment
 * (implicit grant), the callback page posts the fragment back to the listener.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CancelledError, LanyardError, OAuthError, TimeoutError } from '../errors.js';

export interface LoopbackOptions {
  /** Path of the redirect URI; default `/callback`. */
  path?: string;
  /** `query`: parameters in the query string (code flows). `fragment`: in the URL fragment (implicit). */
  responseMode?: 'query' | 'fragment';
  /** The expected `state`; a callback with another state is refused and the flow aborted. */
  state: string;
  signal?: AbortSignal;
  /** Title shown on the page the browser lands on. */
  productName?: string;
  /** A port to try first (a registration's redirect URI); a random one when it is taken. */
  preferredPort?: number;
  /**
   * Checks a callback's parameters (state already checked) before the browser
   * is told it signed in — e.g. RFC 9207's `iss`. What it throws ends the
   * flow with that error, and the page says the sign-in was refused and why.
   */
  check?: (params: URLSearchParams) => void;
  /**
   * How long the browser waits for the flow's outcome after its callback
   * arrived (on the `sleep` given to `wait()`); past it, the page says the
   * sign-in is finishing in the terminal. Default 60 s: past the token
   * request's connect and headers deadlines.
   */
  answerWithinMs?: number;
}

/** An accepted callback: its parameters, and the flow's outcome still to tell the browser. */
export interface LoopbackCallback {
  readonly params: URLSearchParams;
  /**
   * Runs the rest of the sign-in (the token exchange, checks, saving), then
   * answers the browser: signed in when `work` resolves, failed and why when
   * it throws (what it threw is rethrown).
   */
  finish<T>(work: () => Promise<T>): Promise<T>;
}

export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>/callback` */
  readonly redirectUri: string;
  /**
   * Resolves with the callback once one arrives (state checked) — the browser
   * waits for its `finish()` — and rejects on state mismatch, an `error`
   * callback, timeout or abort.
   */
  wait(timeoutMs: number, sleep: (ms: number, signal?: AbortSignal) => Promise<void>): Promise<LoopbackCallback>;
  /** Closes the listener; a browser still waiting is told to look at the terminal. */
  close(): Promise<void>;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML: what the authorization server sent (`error_description`) is data, never markup. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** A page: `title` and `body` are text (escaped here); `script` is ours. */
const page = (title: string, body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
  '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.4rem}</style>' +
  `</head><body><h1>${escapeHtml(title)}</h1><p id="msg">${escapeHtml(body)}</p>${script}</body></html>`;

/** Pages without a script of ours run none at all (a second wall behind the escaping). */
const NO_SCRIPT = "default-src 'none'; style-src 'unsafe-inline'";

/** The page served for fragment responses: hands `location.hash` back to the listener. */
const fragmentRelay = (path: string) =>
  page(
    'Finishing sign-in…',
    'Handing the result to the command line.',
    `<script>(function(){var h=location.hash.slice(1);if(!h){document.querySelector("h1").textContent="No sign-in response here";document.getElementById("msg").textContent="This page only finishes a sign-in started from the command line.";return}history.replaceState(null,"",location.pathname);fetch(${JSON.stringify(path)},{method:"POST",headers:{"content-type":"application/x-www-form-urlencoded"},body:h})` +
      '.then(function(r){return r.text()}).then(function(t){var i=t.indexOf("\\n");document.querySelector("h1").textContent=i<0?t:t.slice(0,i);document.getElementById("msg").textContent=i<0?"Return to the terminal.":t.slice(i+1)})' +
      '.catch(function(){document.getElementById("msg").textContent="Could not reach the command line."})})();</script>',
  );

export async function startLoopbackReceiver(o: LoopbackOptions): Promise<LoopbackReceiver> {
  const path = o.path ?? '/callback';
  const outcome = new Outcome();
  let port = 0;
  const server = createServer(
    callbackHandler(
      path,
      o.responseMode ?? 'query',
      () => `http://127.0.0.1:${port}`,
      (params, res, html) => answerCallback(params, reply(res, html), o, outcome, () => shut()),
    ),
  );
  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  if (o.preferredPort) await listen(o.preferredPort).catch(() => listen(0));
  else await listen(0);
  port = (server.address() as AddressInfo).port;
  let shutting: Promise<void> | undefined;
  const shut = () => {
    shutting ??= new Promise<void>((r) => {
      server.closeAllConnections?.();
      server.close(() => r());
    });
    return shutting;
  };
  const redirectUri = `http://127.0.0.1:${port}${path}`;
  return {
    redirectUri,
    async wait(timeoutMs, sleep) {
      try {
        const held = await waitForCallback(outcome, redirectUri, timeoutMs, sleep, o.signal);
        held.bound(o.answerWithinMs ?? 60_000, sleep);
        return held.callback(o.productName ?? 'Lanyard');
      } catch (err) {
        // A refusal's page was sent with the refusal: let the browser receive it before closing.
        setImmediate(() => void shut());
        throw err;
      }
    },
    async close() {
      await outcome.held?.answer(500, 'Sign-in did not finish', 'The command line stopped before finishing; it says why in the terminal.');
      await shut();
    },
  };
}

const FINISHING = [
  'Finishing sign-in in the terminal',
  'The command line is still finishing the sign-in and will say there whether it worked. You can close this window.',
] as const;

/** What a failed sign-in's page says: a LanyardError's message (one line, never a secret by contract), else nothing of the error. */
function failureReason(err: unknown): string {
  const text = err instanceof LanyardError ? err.message : 'an unexpected error';
  return text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/[.\s]+$/, '')
    .slice(0, 300);
}

/** An accepted callback whose page waits for the flow's outcome; answered once, then the listener closes. */
class HeldAnswer {
  #answered = false;
  readonly #bound = new AbortController();

  constructor(
    readonly params: URLSearchParams,
    private readonly send: Reply,
    private readonly closeListener: () => Promise<void>,
  ) {}

  /** Past `ms` on `sleep`, the browser is told the sign-in is finishing in the terminal. */
  bound(ms: number, sleep: (ms: number, signal?: AbortSignal) => Promise<void>): void {
    sleep(ms, this.#bound.signal).then(
      () => this.answer(200, ...FINISHING),
      () => undefined,
    );
  }

  async answer(status: number, title: string, text: string): Promise<void> {
    if (this.#answered) return;
    this.#answered = true;
    this.#bound.abort();
    await this.send(status, title, text);
    await this.closeListener();
  }

  callback(productName: string): LoopbackCallback {
    return {
      params: this.params,
      finish: async <T>(work: () => Promise<T>): Promise<T> => {
        let result: T;
        try {
          result = await work();
        } catch (err) {
          await this.answer(502, 'Sign-in failed', `${failureReason(err)}. Nothing more happens here; return to the terminal.`);
          throw err;
        }
        await this.answer(200, `Signed in to ${productName}`, 'You can close this window and return to the terminal.');
        return result;
      },
    };
  }
}

/** The one outcome of a sign-in's callback (the first counts), and whoever waits for it. */
class Outcome {
  #settle?: { resolve: (h: HeldAnswer) => void; reject: (e: Error) => void };
  #result?: { held?: HeldAnswer; error?: Error };

  get settled(): boolean {
    return this.#result !== undefined;
  }

  /** The accepted callback, whose browser may still wait for its answer. */
  get held(): HeldAnswer | undefined {
    return this.#result?.held;
  }

  finish(r: { held?: HeldAnswer; error?: Error }): void {
    if (this.#result) return;
    this.#result = r;
    if (this.#settle) r.error ? this.#settle.reject(r.error) : this.#settle.resolve(r.held!);
  }

  wait(): Promise<HeldAnswer> {
    return new Promise<HeldAnswer>((resolve, reject) => {
      this.#settle = { resolve, reject };
      if (this.#result) this.#result.error ? reject(this.#result.error) : resolve(this.#result.held!);
    });
  }
}

/** The callback's parameters, within `timeoutMs` on `sleep` (a TimeoutError after; CancelledError when `signal` aborts). */
async function waitForCallback(
  outcome: Outcome,
  redirectUri: string,
  timeoutMs: number,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<HeldAnswer> {
  const timer = new AbortController();
  const abortAll = () => timer.abort();
  signal?.addEventListener('abort', abortAll, { once: true });
  try {
    return await Promise.race([
      outcome.wait(),
      sleep(timeoutMs, timer.signal).then(
        () => {
          throw new TimeoutError(
            'GET',
            redirectUri,
            'total',
            `sign-in timed out: the browser did not come back to ${redirectUri} within ${Math.round(timeoutMs / 1000)} s (run again, or raise --timeout)`,
          );
        },
        () => {
          throw new CancelledError();
        },
      ),
    ]);
  } finally {
    signal?.removeEventListener('abort', abortAll);
    timer.abort();
  }
}

/**
 * How the receiver answers one callback: a page for the browser, or plain text
 * (the title, a line feed, the text) to the fragment page's post. Resolves
 * once the answer has left (or the browser has gone).
 */
type Reply = (status: number, title: string, text: string) => Promise<void>;

function reply(res: ServerResponse, html: boolean): Reply {
  return (status, title, text) => {
    const sent = new Promise<void>((r) => {
      res.once('finish', r);
      res.once('close', r);
    });
    if (html)
      res
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': NO_SCRIPT })
        .end(page(title, text));
    else res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`${title}\n${text}`);
    return sent;
  };
}

/**
 * One callback's parameters: the outcome (state checked, an `error` refused,
 * answered at once) or, accepted, a browser waiting for the flow's outcome.
 */
function answerCallback(params: URLSearchParams, send: Reply, o: LoopbackOptions, outcome: Outcome, closeListener: () => Promise<void>): void {
  if (outcome.settled) return void send(409, 'This sign-in link was already used', 'Return to the terminal.');
  if (params.get('state') !== o.state) {
    void send(400, 'Sign-in refused: state mismatch', 'The response did not carry the state this sign-in sent. Nothing was stored; run the command again.');
    return outcome.finish({
      error: new OAuthError(
        'state_mismatch',
        undefined,
        undefined,
        'sign-in aborted: the returned state does not match the one sent (possible forged request)',
      ),
    });
  }
  const error = params.get('error');
  if (error) {
    void send(400, 'Sign-in was not completed', `${error}${params.get('error_description') ? ': ' + params.get('error_description') : ''}`);
    return outcome.finish({ error: new OAuthError(error, params.get('error_description') ?? undefined, undefined) });
  }
  try {
    o.check?.(params);
  } catch (err) {
    void send(400, 'Sign-in refused', `${(err as Error).message}. Return to the terminal.`);
    return outcome.finish({ error: err as Error });
  }
  outcome.finish({ held: new HeldAnswer(params, send, closeListener) });
}

/**
 * The listener's requests: the callback (query mode), or the fragment relay
 * page and its post (fragment mode); `origin` is the listener's own.
 */
function callbackHandler(
  path: string,
  mode: 'query' | 'fragment',
  origin: () => string,
  onParams: (params: URLSearchParams, res: ServerResponse, html: boolean) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    if (mode === 'query' && req.method === 'GET') return onParams(url.searchParams, res, true);
    if (mode === 'fragment' && req.method === 'GET') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
        .end(fragmentRelay(path));
      return;
    }
    if (mode === 'fragment' && req.method === 'POST') {
      // Only the page we served posts here: a cross-origin post (another site in the browser) is refused
      // without touching the flow, so it can neither complete nor abort it.
      const from = req.headers.origin;
      if (from !== undefined && from !== origin()) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('Cross-origin request refused');
        return;
      }
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
        if (body.length > 64 * 1024) req.destroy();
      });
      req.on('end', () => onParams(new URLSearchParams(body), res, false));
      return;
    }
    res.writeHead(405, { 'content-type': 'text/plain' }).end('Method not allowed');
  };
}

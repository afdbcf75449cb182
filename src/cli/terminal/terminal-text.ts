/**
 * The one sanitiser at the terminal boundary, and what it hides.
 *
 * `terminalText`: everything Lanyard writes to a terminal (stdout and stderr,
 * the pager's input; `--jq` and `--template` results, tables, bodies,
 * prompts, errors) passes through it, in io.ts and pager.ts. Control
 * characters become visible caret notation, as the code host's CLI shows them
 * (its asciisanitizer): ESC is `^[`, BEL `^G`, a bare CR `^M`, DEL `^?`, a C1
 * control such as U+009B (CSI) `^[[`; the Unicode bidirectional controls are
 * shown as `<U+202E>`. Newlines, tabs and CRLF line ends stay. Every escape
 * sequence a server sends is shown, colour (SGR) included: Lanyard adds its
 * own colour after sanitising the text it colours (`io.printStyled`), so the
 * sanitiser never has to tell the two apart. Output that is not a terminal
 * (a pipe, a file) is never changed: JSON keeps its exact bytes there.
 * Streamed bodies (`mailbox raw`, `api`) go through terminal-stream.ts.
 *
 * `Secrets.safe`: every diagnostic line on stderr (main's error line, warnings,
 * notices) goes through it, terminal or not (a CI log renders escapes too):
 * known secrets replaced by [REDACTED], then the same caret notation, so a
 * server message shows what it held instead of acting on the terminal or
 * silently losing characters. Table cells (`sanitize` in output.ts) use the
 * same rule. See docs/security.md.
 */
import { isSecretField } from '../../core/http/redact.js';

// A CR is shown only when bare: CRLF is a line end (issue bodies written in a browser, mail).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
const CONTROL_OR_SGR = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

function caret(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  if (code <= 0x9f) return `^[${String.fromCharCode(code - 0x40)}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * `text` fit for a terminal: controls in caret notation. `keepColor` only for
 * text Lanyard coloured itself after sanitising what it holds (`io.printStyled`):
 * its SGR sequences stay, anything else is still shown.
 */
export function terminalText(text: string, keepColor = false): string {
  return keepColor ? text.replace(CONTROL_OR_SGR, (m) => (m.length > 2 ? m : caret(m))) : text.replace(CONTROL, caret);
}

/** Token shapes redacted wherever they appear: the code host's (and the emulator's) prefixes, JWTs. */
const TOKEN_SHAPES = /\b(?:gh[opusr]_|github_pat_|ly[opusrw]_)[A-Za-z0-9_-]{16,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g;

const REDACTED = '[REDACTED]';

/** Environment variables that hold secrets: every LANYARD_* credential, CI tokens, and anything named like a token, secret, password or key. */
const SECRET_VARIABLE = /TOKEN|SECRET|PASSW(?:OR)?D|PASSPHRASE|CREDENTIAL|API_?KEY|ACCESS_KEY|PRIVATE_KEY|SIGNING_KEY/i;

export function isSecretVariable(name: string): boolean {
  return SECRET_VARIABLE.test(name);
}

/** A copy of `env` without its secret variables (LANYARD_TOKEN, LANYARD_CLIENT_SECRET, GH_TOKEN, ...), for child processes such as the browser. */
export function scrubbedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !isSecretVariable(k)) out[k] = v;
  return out;
}

/** Shorter values are not redacted (they would blank out ordinary words). */
const MIN_SECRET_LENGTH = 8;

/**
 * The secrets of one run to redact from every diagnostic line: what the
 * environment, the credential store, the HTTP client (every credential it
 * sends) and the network settings reveal. main makes one per process and
 * hands it to the context (`ctx.secrets`), which feeds it.
 */
export class Secrets {
  readonly #known = new Set<string>();

  /**
   * Remembers a secret to redact from everything shown. A JSON value (a stored
   * token set, a client registration) gives its secret fields (accessToken,
   * refresh_token, clientSecret, ...), not the rest (an email, a login).
   */
  remember(value: string | undefined): void {
    if (!value) return;
    // As sent in a URL or a form body too (`a+b/c` is `a%2Bb%2Fc` there).
    const add = (v: unknown): void => {
      if (typeof v !== 'string' || v.length < MIN_SECRET_LENGTH) return;
      this.#known.add(v);
      this.#known.add(encodeURIComponent(v));
      this.#known.add(new URLSearchParams({ v }).toString().slice(2));
    };
    const fields = (o: unknown): void => {
      if (!o || typeof o !== 'object') return;
      for (const [k, v] of Object.entries(o)) {
        if (typeof v === 'object') fields(v);
        else if (isSecretField(k.replace(/([a-z])([A-Z])/g, '$1_$2'))) add(v);
      }
    };
    if (value.startsWith('{')) {
      try {
        fields(JSON.parse(value));
        return;
      } catch {
        /* not JSON: the value itself */
      }
    }
    add(value);
  }

  /** Remembers the values of the secret variables of `env`. */
  rememberEnv(env: NodeJS.ProcessEnv): void {
    // Trimmed: a token variable is used without its surrounding whitespace (a secret file's newline), and
    // redacting `token\n` would take the line break after a quoted token with it.
    for (const [k, v] of Object.entries(env)) if (isSecretVariable(k)) this.remember(v?.trim());
  }

  /** Known secrets and token shapes replaced by [REDACTED]. */
  redact(text: string): string {
    let out = text;
    // Longest first, so a secret that contains another is replaced whole.
    for (const s of [...this.#known].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out.replace(TOKEN_SHAPES, REDACTED);
  }

  /** Text fit for a terminal or a CI log: secrets redacted, control characters in caret notation. */
  safe(text: string): string {
    return terminalText(this.redact(text));
  }
}

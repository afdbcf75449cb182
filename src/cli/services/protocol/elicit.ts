/**
 * Answers a server's `elicitation/create`: on a terminal the user is asked
 * each field (Enter takes the default; an empty answer to the first question
 * when nothing is required declines); in scripts it is declined, or — with
 * `--elicitation defaults` — accepted with the schema's defaults.
 */
import type { Context } from '../../context.js';
import type { ElicitResult } from '../../../core/protocol/session.js';
import { sanitize } from '../../output/output.js';
import { CancelledError } from '../../../core/errors.js';

export type ElicitationMode = 'prompt' | 'decline' | 'defaults';

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  /** Labels of `enum`'s values (2025-06-18's legacy form; 2025-11-25 titles `oneOf` instead). */
  enumNames?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  minimum?: number;
  maximum?: number;
}

interface RequestedSchema {
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

export async function answerElicitation(
  ctx: Context,
  mode: ElicitationMode,
  p: { message?: string; requestedSchema?: unknown; mode?: string; url?: string },
): Promise<ElicitResult> {
  // URL-mode elicitation (2025-11-25) sends the user to a page; Lanyard does not open pages servers choose.
  if (p.mode === 'url') {
    ctx.io.err(`The server asks you to visit ${sanitize(String(p.url ?? '?'))}; Lanyard declined (open it yourself if you trust it)`);
    return { action: 'decline' };
  }
  const schema = (p.requestedSchema ?? {}) as RequestedSchema;
  const props = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  if (mode === 'decline') {
    ctx.io.err(`The server asked: ${sanitize(p.message ?? '(no message)')} — declined (no terminal; pass --elicitation defaults to accept the defaults)`);
    return { action: 'decline' };
  }
  if (mode === 'defaults') {
    const content: Record<string, unknown> = {};
    for (const [name, f] of props) if (f.default !== undefined) content[name] = f.default;
    const missing = [...required].filter((n) => !(n in content));
    if (missing.length) {
      ctx.io.err(
        `The server asked: ${sanitize(p.message ?? '')} — declined: ${missing.map(sanitize).join(', ')} ha${missing.length > 1 ? 've' : 's'} no default`,
      );
      return { action: 'decline' };
    }
    return { action: 'accept', content };
  }
  return prompt(ctx, p.message ?? '', props, required);
}

/**
 * How a question at the prompt ended without an answer: Ctrl-C cancels the
 * elicitation (the protocol's "dismissed without a choice"), Ctrl-D (end of
 * input) declines it, the run's abort (SIGTERM, a second signal) stops it.
 */
type Ending = 'cancel' | 'decline' | 'abort';

/** A question that got no answer, and why (never confused with an answer or a server's default). */
class Ended {
  constructor(readonly why: Ending) {}
}

/** A readline on the terminal whose questions settle on Ctrl-C, Ctrl-D and the run's abort instead of hanging. */
async function openPrompt(ctx: Context) {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr, terminal: true });
  const ac = new AbortController();
  let ending: Ending | undefined;
  const end = (why: Ending) => {
    ending ??= why;
    ac.abort();
  };
  const onAbort = () => end('abort');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // readline has the terminal in raw mode: Ctrl-C arrives as its SIGINT event, Ctrl-D closes it.
  rl.on('SIGINT', () => end('cancel'));
  rl.on('close', () => end('decline'));
  return {
    /** The answer, or how the prompt ended. */
    async ask(question: string): Promise<string | Ended> {
      if (ending) return new Ended(ending);
      try {
        return (await rl.question(question, { signal: ac.signal })).trim();
      } catch (err) {
        if (ending) return new Ended(ending);
        throw err;
      }
    },
    close() {
      ctx.signal.removeEventListener('abort', onAbort);
      rl.close();
    },
  };
}

/** The result for a prompt that ended without an answer; the run's abort is CancelledError (exit 130, 143 on SIGTERM). */
function ended(ctx: Context, why: Ending): ElicitResult {
  if (why === 'abort') throw new CancelledError();
  ctx.io.err(
    why === 'cancel' ? 'Cancelled: the server is told so; press Ctrl-C again to stop waiting for the call' : 'Declined (end of input): the server is told so',
  );
  return { action: why };
}

async function prompt(ctx: Context, message: string, props: Array<[string, FieldSchema]>, required: Set<string>): Promise<ElicitResult> {
  const rl = await openPrompt(ctx);
  try {
    ctx.io.err(`The server asks: ${sanitize(message)}`);
    const first = await rl.ask('Answer? [Y/n/c(ancel)] ');
    if (first instanceof Ended) return ended(ctx, first.why);
    const ok = first.toLowerCase();
    if (ok === 'n' || ok === 'no') return { action: 'decline' };
    if (ok === 'c' || ok === 'cancel') return { action: 'cancel' };
    const content: Record<string, unknown> = {};
    for (const [name, f] of props) {
      const v = await askField(ctx, rl.ask, name, f, required.has(name));
      if (v instanceof Ended) return ended(ctx, v.why);
      if (v !== undefined) content[name] = v;
    }
    return { action: 'accept', content };
  } finally {
    rl.close();
  }
}

/** One field asked until the answer fits its schema; undefined when left empty (no default, not required). */
async function askField(ctx: Context, ask: (q: string) => Promise<string | Ended>, name: string, f: FieldSchema, required: boolean): Promise<unknown> {
  const choices = f.enum ?? f.oneOf?.map((o) => o.const);
  // Everything here is the server's text: names, types, descriptions, choices and defaults are sanitised alike.
  const kind = choices ? undefined : typeof f.type === 'string' ? sanitize(f.type) : undefined;
  const labels: unknown[] | undefined = f.oneOf?.map((o) => o.title) ?? f.enumNames;
  const choice = (c: unknown, i: number) => {
    const label = labels?.[i];
    return sanitize(String(c)) + (label !== undefined && String(label) !== String(c) ? ` (${sanitize(String(label))})` : '');
  };
  const hint = [choices ? choices.map(choice).join('/') : kind, f.default !== undefined ? `default ${sanitize(String(f.default))}` : '']
    .filter(Boolean)
    .join(', ');
  const question = `${sanitize(String(f.title ?? name))}${f.description ? ` (${sanitize(String(f.description))})` : ''}${hint ? ` [${hint}]` : ''}: `;
  for (;;) {
    const raw = await ask(question);
    if (raw instanceof Ended) return raw;
    if (raw === '') {
      if (f.default !== undefined) return f.default;
      if (!required) return undefined;
      ctx.io.err('  this field is required');
      continue;
    }
    const v = convert(raw, f, choices);
    if (v !== undefined) return v;
    ctx.io.err(`  not a valid ${choices ? 'choice' : (kind ?? 'value')}`);
  }
}

function convert(raw: string, f: FieldSchema, choices: unknown[] | undefined): unknown {
  if (choices) return choices.find((c) => String(c) === raw);
  if (f.type === 'boolean') return /^(y|yes|true|1)$/i.test(raw) ? true : /^(n|no|false|0)$/i.test(raw) ? false : undefined;
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(raw);
    if (!Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n))) return undefined;
    if ((f.minimum !== undefined && n < f.minimum) || (f.maximum !== undefined && n > f.maximum)) return undefined;
    return n;
  }
  return raw;
}

/**
 * Answers a server's `elicitation/create`: on a terminal the user is asked
 * each field (Enter takes the default; an empty answer to the first question
 * when nothing is required declines); in scripts it is declined, or — with
 * `--elicitation defaults` — accepted with the schema's defaults.
 */
import type { Context } from '../../context.js';
import type { ElicitResult } from '../../../core/protocol/session.js';
import { sanitize } from '../../output/output.js';

export type ElicitationMode = 'prompt' | 'decline' | 'defaults';

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
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

async function prompt(ctx: Context, message: string, props: Array<[string, FieldSchema]>, required: Set<string>): Promise<ElicitResult> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr, terminal: true });
  const onAbort = () => rl.close();
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    ctx.io.err(`The server asks: ${sanitize(message)}`);
    const ok = (await rl.question('Answer? [Y/n/c(ancel)] ')).trim().toLowerCase();
    if (ok === 'n' || ok === 'no') return { action: 'decline' };
    if (ok === 'c' || ok === 'cancel') return { action: 'cancel' };
    const content: Record<string, unknown> = {};
    for (const [name, f] of props) {
      const choices = f.enum ?? f.oneOf?.map((o) => o.const);
      const label = sanitize(f.title ?? name);
      const hint = [
        choices ? choices.map((c) => sanitize(String(c))).join('/') : f.type,
        f.default !== undefined ? `default ${sanitize(String(f.default))}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      for (;;) {
        const raw = (await rl.question(`${label}${f.description ? ` (${sanitize(f.description)})` : ''} [${hint}]: `)).trim();
        if (raw === '') {
          if (f.default !== undefined) content[name] = f.default;
          else if (required.has(name)) {
            ctx.io.err('  this field is required');
            continue;
          }
          break;
        }
        const v = convert(raw, f, choices);
        if (v === undefined) {
          ctx.io.err(`  not a valid ${choices ? 'choice' : (f.type ?? 'value')}`);
          continue;
        }
        content[name] = v;
        break;
      }
    }
    return { action: 'accept', content };
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
    rl.close();
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

/**
 * The shaper of `--jq` / `--template` for a command, made before its run
 * function runs (command-kit.ts's commandOutput): the engine is loaded
 * and the expression checked first, so a bad one is exit 2 before any
 * request or stored state.
 */
import type { Context } from '../context.js';
import { UsageError } from '../errors/usage-error.js';
import type { JsonShaper } from './registry.js';
import { terminalJson } from '../terminal/terminal-text.js';

export interface ShapeOptions {
  jq?: string;
  template?: string;
}

export async function prepareShaping(ctx: Context, o: ShapeOptions): Promise<JsonShaper | undefined> {
  if (o.jq !== undefined && o.template !== undefined) throw new UsageError('--jq and --template cannot be used together');
  const color = ctx.io.color && ctx.io.stdoutIsTTY;
  let shaper: JsonShaper;
  if (o.jq !== undefined) {
    const { jqShaper } = await import('./jq.js');
    shaper = await jqShaper(o.jq, { pretty: ctx.io.stdoutIsTTY, color });
  } else if (o.template !== undefined) {
    const { templateShaper } = await import('./template.js');
    shaper = await templateShaper(o.template, { tty: ctx.io.stdoutIsTTY, color, now: () => ctx.clock.now() });
  } else return undefined;
  return color ? styledShaper(shaper) : shaper;
}

/**
 * A shaper whose colour reaches the terminal: it shapes JSON whose strings were
 * sanitised first (terminalJson), so the only escape sequences in its result
 * are the colour it adds (and what the expression itself writes).
 */
function styledShaper(s: JsonShaper): JsonShaper {
  return { source: s.source, styled: true, format: (value) => s.format(terminalJson(value)) };
}

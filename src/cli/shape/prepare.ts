/**
 * The shaper of `--jq` / `--template` for a command, made before its run
 * function runs (command-kit.ts's commandOutput): the engine is loaded
 * and the expression checked first, so a bad one is exit 2 before any
 * request or stored state.
 */
import type { Context } from '../context.js';
import { UsageError } from '../errors/usage-error.js';
import type { JsonShaper } from './registry.js';

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
  // On a colour terminal the shaper runs on the exact data and makes its own result safe for a writer that keeps
  // colour (its `styled`): jq.ts colourSafe, template.ts's marks. Anywhere else its result is sanitised whole.
  return shaper;
}

/**
 * `emulator console`: checks the emulator answers, then opens its console in
 * the browser on a terminal and says "Opened" only once the opener succeeded
 * (it exited 0); prints the URL (stdout) without a terminal, with
 * --no-browser, or when no browser could be opened; --json: `{"url"}`. In an
 * ssh session with no display nothing is opened: the URL comes with how to
 * forward its port (`ssh -L`), as the browser sign-ins say it.
 */
import type { Context } from '../../context.js';
import type { CheckedBrowser, OpenOutcome } from '../../terminal/browser.js';
import { onLoopback, remoteWithoutDisplay, sshForwardAdvice } from '../../terminal/interactive.js';
import type { EmulatorTargetOptions } from './options.js';
import { consoleUrl, emulatorAdmin, emulatorUrl } from './run.js';

/** How long the opener is given to say whether it handed the URL over (xdg-open and open exit within a second). */
const OPENER_WAIT_MS = 2000;

export async function runEmulatorConsole(ctx: Context, opts: EmulatorTargetOptions & { browser?: boolean }): Promise<void> {
  const base = await emulatorUrl(ctx, opts);
  await emulatorAdmin(ctx, { url: base }, 'GET', 'info');
  const url = consoleUrl(base);
  if (ctx.output.format !== 'human') return void ctx.output.document({ url });
  const remote = remoteWithoutDisplay(ctx.env);
  if (remote && ctx.io.stderrIsTTY && onLoopback(url))
    ctx.io.err([...sshForwardAdvice('the console is served at', url, 'open it'), 'then open this URL there:'].join('\n'));
  else if (!remote && opts.browser !== false && ctx.io.stdoutIsTTY && ctx.io.stderrIsTTY) {
    const outcome = await openOutcome(ctx, url);
    if (outcome === 'opened') return ctx.io.err(`Opened ${url} in your browser`);
    if (outcome === 'started') return ctx.io.err(`Asked the system to open ${url} in a browser; if no page appears, open that URL yourself`);
    ctx.io.err('No browser could be opened here; open this URL in a browser:');
  }
  ctx.io.out(url);
}

/** The opener's outcome; a browser port that cannot tell (a test's, a library's) says only whether it started. */
async function openOutcome(ctx: Context, url: string): Promise<OpenOutcome> {
  const browser = await ctx.browser();
  if ('openChecked' in browser) return (browser as CheckedBrowser).openChecked(url, OPENER_WAIT_MS);
  return (await browser.open(url)) ? 'started' : 'failed';
}

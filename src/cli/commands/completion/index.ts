import { Command, Argument } from 'commander';
import type { Context } from '../../context.js';
import { examples, runs } from '../../command-kit.js';

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them). */
export const summary = 'print a shell completion script (bash, zsh, fish)';

export function completionCommand(ctx: Context): Command {
  const cmd = new Command('completion')
    .description(summary)
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(
      runs(ctx, async (ctx, shell: 'bash' | 'zsh' | 'fish') => {
        const { generateCompletion } = await import('../../completion/generate.js');
        let root = cmd;
        while (root.parent) root = root.parent;
        ctx.io.print(generateCompletion(root, shell));
      }),
    );
  examples(
    cmd,
    [
      'lanyard completion bash > ~/.local/share/bash-completion/completions/lanyard',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expansion in an example, not a template
      'lanyard completion zsh > "${fpath[1]}/_lanyard"',
      'lanyard completion fish > ~/.config/fish/completions/lanyard.fish',
    ],
    [0, 1, [2, 'a shell other than bash, zsh or fish']],
  );
  return cmd;
}

/** Hidden: candidates for dynamic completion, one per line (used by the scripts). */
export function completeCommand(ctx: Context): Command {
  return new Command('__complete').argument('<kind>', 'profiles | resources | accounts').action(
    runs(ctx, async (ctx, kind: string) => {
      if (kind === 'profiles') {
        try {
          const store = await ctx.configView();
          for (const name of Object.keys(store.profiles())) ctx.io.out(name);
        } catch {
          /* no config: no candidates */
        }
      } else if (kind === 'accounts') {
        try {
          const { storedLogins } = await import('./accounts.js');
          for (const login of await storedLogins(ctx)) ctx.io.out(login);
        } catch {
          /* no profile, no host, no store: no candidates */
        }
      } else if (kind === 'resources') {
        const { RATE_LIMIT_RESOURCES } = await import('../../../shared/rate-limit-resources.js');
        for (const r of RATE_LIMIT_RESOURCES) ctx.io.out(r);
      }
    }),
  );
}

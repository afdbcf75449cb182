/**
 * The root help (`lanyard --help`) on a terminal without the CLI.
 *
 * To a pipe or a file, bin/lanyard.js prints dist/root-help.txt, commander's
 * text rendered by the build at 80 columns. A terminal gets it at its own
 * width, which commander applies in two places only: the command's
 * description (`boxWrap`) and each option or command line (`formatItem`); the
 * rest (the usage line, the headings, the texts added after the help) is
 * printed as it is. So the build records the help once as its lines, with
 * those two kinds of part left unwrapped (dist/root-help.json,
 * {@link recordRootHelp}), and the launcher wraps them at the terminal's width
 * with commander's own Help class (dist/root-help.cjs, {@link renderRootHelp}:
 * the build bundles commander's lib/help.js alone, not its command tree).
 */
import { type Command, Help } from 'commander';
import { wrapHelp } from './help-wrap.js';

/** One line of the help as printed, or a part commander wraps to the width. */
export type RootHelpPart = string | { item: [term: string, termWidth: number, description: string] } | { wrap: string };

/** The root help's lines, unwrapped (what the build writes to dist/root-help.json). */
export interface RootHelpLayout {
  /** The build's hash of the layout and its renderer (dist/root-help.json opens with it; bin/lanyard.js keys its cache by it). */
  build?: string;
  parts: RootHelpPart[];
}

/** Marks a recorded part in the text commander formats: a control character no help text holds. */
const MARK = '\u0001';

/**
 * The help `program` prints, as lines and unwrapped parts: its own text
 * formatted by commander with formatItem and boxWrap recorded instead of
 * applied, then the texts added after it (`addHelpText`), as printed.
 */
export function recordRootHelp(program: Command): RootHelpLayout {
  const recorded: Exclude<RootHelpPart, string>[] = [];
  const mark = (part: Exclude<RootHelpPart, string>) => `${MARK}${recorded.push(part) - 1}${MARK}`;
  const configured = program.configureHelp();
  program.configureHelp({
    ...configured,
    formatItem: (term: string, termWidth: number, description: string) => (description ? mark({ item: [term, termWidth, description] }) : `  ${term}`),
    boxWrap: (text: string) => mark({ wrap: text }),
  });
  let text = '';
  const output = program.configureOutput();
  program.configureOutput({ ...output, writeOut: (s) => (text += s), getOutHelpWidth: () => 80, getOutHasColors: () => false });
  try {
    program.outputHelp();
  } finally {
    program.configureHelp(configured);
    program.configureOutput(output);
  }
  const parts = text.split('\n').map((line): RootHelpPart => {
    const m = new RegExp(`^${MARK}(\\d+)${MARK}$`).exec(line);
    if (m) return recorded[Number(m[1])]!;
    if (line.includes(MARK)) throw new Error(`root help: a wrapped part shares its line with other text: ${JSON.stringify(line)}`);
    return line;
  });
  return { parts };
}

/** The help of `layout` as commander prints it `width` columns wide (no colour: the root help has none). */
export function renderRootHelp(layout: RootHelpLayout, width: number): string {
  const help = new Help();
  help.prepareContext({ helpWidth: width, outputHasColors: false });
  // Then wrapped whole, as the program's writeOut wraps commander's text (help-wrap.ts).
  const text = layout.parts
    .map((p) => (typeof p === 'string' ? p : 'item' in p ? help.formatItem(p.item[0], p.item[1], p.item[2], help) : help.boxWrap(p.wrap, width)))
    .join('\n');
  return wrapHelp(text, width);
}

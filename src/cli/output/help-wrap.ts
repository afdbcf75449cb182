/**
 * The hand-written parts of `--help` (notes, "Examples:", "Exit status:",
 * the root's network and environment blocks) wrapped to the help's width, as
 * commander wraps its own parts: 80 columns into a pipe, the terminal's width
 * on a terminal. A line that fits is left as it is. A longer one is broken
 * between words; its continuation lines hang under the text after a term
 * column (`  2     usage or …`: two spaces or more after the term), else four
 * columns in from the line's indent. An example command (`  $ lanyard …`) is
 * broken only between shell words, outside quotes, with a ` \` at the end of
 * each line, so it still pastes as one command. Help text is ASCII but for a
 * few one-column characters (…, —), so its length is its width.
 */

/** Below this width commander does not wrap either (its minWidthToWrap). */
const MIN_WIDTH = 40;

export function wrapHelp(text: string, width: number): string {
  if (!(width >= MIN_WIDTH)) return text;
  return text
    .split('\n')
    .map((line) => (line.length <= width ? line : wrapLine(line, width)))
    .join('\n');
}

function wrapLine(line: string, width: number): string {
  const indent = line.length - line.trimStart().length;
  const example = /^\s*\$ /.test(line);
  const term = example ? null : /^\s*\S.*?\s{2,}(?=\S)/.exec(line);
  const head = term && term[0].length <= width / 2 ? term[0] : line.slice(0, indent);
  const hang = ' '.repeat(head.length > indent ? head.length : indent && indent + 4);
  const words = example ? shellWords(line.slice(indent)) : line.slice(head.length).split(/ +/);
  const end = example ? ' \\' : '';
  const out: string[] = [];
  let current = head;
  let empty = true;
  for (const word of words) {
    if (!empty && current.length + 1 + word.length + end.length > width) {
      out.push(current + end);
      current = hang + word;
    } else current += (empty ? '' : ' ') + word;
    empty = false;
  }
  out.push(current);
  return out.join('\n');
}

/** The words of a shell command line, split at blanks outside quotes; a comment (` # …`) is one word. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && quote !== "'") {
      // An escaped character, kept with its backslash.
      word += c + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && word === '') return [...words, text.slice(i)];
    else if (c === ' ') {
      if (word) words.push(word);
      word = '';
      continue;
    }
    word += c;
  }
  if (word) words.push(word);
  return words;
}

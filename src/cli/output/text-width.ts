/**
 * How many terminal columns text takes, and cutting it to a width: by
 * grapheme cluster (Intl.Segmenter), so a character — a surrogate pair, an
 * emoji sequence, a letter with its combining marks — is never split. A
 * cluster is as wide as its first code point's East Asian Width (wide and
 * fullwidth: 2, from Unicode's data through get-east-asian-width), an emoji
 * sequence (ZWJ, flag, skin tone, VS16) 2, combining marks and other zero-width characters 0. The text is
 * sanitised already: no controls or escape sequences are left to measure.
 */
import { eastAsianWidth } from 'get-east-asian-width';

/** Printable ASCII: one column a character, the common case measured without segmenting. */
const ASCII = /^[\u0020-\u007e]*$/;
/** A cluster that takes no column: combining and enclosing marks, format and default-ignorable characters only. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}]+$/u;
/**
 * What joins code points into one cluster (marks, joiners, variation
 * selectors, skin tones, flag halves, Hangul jamo): text without any is
 * measured a code point at a time, without the segmenter (whose first use
 * loads ICU's break rules: tens of milliseconds).
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: it asks whether any one joining code point occurs, never matches a cluster
const JOINS = /[\p{M}\p{Cf}\p{Regional_Indicator}\p{Emoji_Modifier}\uFE00-\uFE0F\u1100-\u11FF]/u;
/** An emoji sequence: a symbol with VS16, a flag, a skin tone, a ZWJ sequence — drawn two columns wide. */
const EMOJI_SEQUENCE = /\uFE0F|\p{Regional_Indicator}|\p{Emoji_Modifier}|\p{Extended_Pictographic}\u200D/u;

/** The grapheme clusters of `text` (a segmenter is cheap to make once ICU's rules are loaded). */
function clusters(text: string): string[] {
  if (!JOINS.test(text)) return Array.from(text);
  return Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (s) => s.segment);
}

/** The columns one grapheme cluster takes. */
function clusterWidth(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  const first = cluster.codePointAt(0)!;
  if (cluster.length > (first > 0xffff ? 2 : 1) && EMOJI_SEQUENCE.test(cluster)) return 2;
  return eastAsianWidth(first);
}

/** The columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  for (const c of clusters(text)) width += clusterWidth(c);
  return width;
}

/** `text` cut to at most `width` columns, with `…` where it was cut (whole clusters only). */
export function cutToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  if (ASCII.test(text)) return `${text.slice(0, width - 1)}…`;
  let out = '';
  let used = 0;
  for (const c of clusters(text)) {
    const w = clusterWidth(c);
    if (used + w > width - 1) break;
    out += c;
    used += w;
  }
  return `${out}…`;
}

/** `text` cut to `width` columns and padded with spaces to exactly that (on the left when `right`). */
export function padToWidth(text: string, width: number, right?: boolean): string {
  const cut = cutToWidth(text, width);
  const fill = ' '.repeat(Math.max(0, width - displayWidth(cut)));
  return right ? fill + cut : cut + fill;
}

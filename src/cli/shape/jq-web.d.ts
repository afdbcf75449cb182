/** jq-web (an Emscripten build of jq) exports a promise of its runtime. */
declare module 'jq-web' {
  export interface JqRuntime {
    /** `echo JSON | jq FLAGS FILTER`; the output without its last newline (undefined when none); throws with `exitCode` and `stderr`. */
    raw(json: string, filter: string, flags?: string[]): string | undefined;
  }
  const jq: Promise<JqRuntime>;
  export default jq;
}

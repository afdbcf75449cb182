/** Root options that take a value (the word after them is not a command). Shared by the program and the launcher's keychain prefetch. */
export const VALUE_OPTIONS: ReadonlySet<string> = new Set(['-p', '--profile', '--max-wait', '--timeout']);

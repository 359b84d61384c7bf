/** Types of latin1-source.mjs, for its test. */
export function escapeBeyondLatin1(code: string): string;

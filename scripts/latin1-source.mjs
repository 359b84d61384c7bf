// Every character of the bundle's chunks beyond Latin-1 is written as a `\uXXXX` escape once the
// chunks are written (rolldown prints string literals again after its plugins run). V8 keeps a
// source as one byte a character only if all of it fits in Latin-1: one "→" in a message made a
// whole chunk two bytes a character, slower to decode and to scan (start-up to a first turn
// 10-15 ms faster escaped, 8 of 8 pairs). The chunks have no comments left, and such characters
// appear only in string, template and regex literals, where the escape means the same character
// (a surrogate pair in a `u` regex is the one code point).

/** Code units beyond Latin-1, one at a time: an astral character becomes its two escapes. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/g;

export function escapeBeyondLatin1(code) {
  return code.replace(
    BEYOND_LATIN1,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

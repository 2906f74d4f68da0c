/**
 * The codes of JSON's structural characters (UTF-16 code units and UTF-8 bytes alike), for the
 * scanners that read JSON text without parsing it: jsonTooDeep (validation.ts) over a string,
 * JsonShapeScanner (inventory/parse.ts) over the bytes of an upload or feed.
 */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

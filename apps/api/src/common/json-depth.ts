/**
 * The nesting limit of JSON request bodies. Deeper JSON has no use here and overflows the stack of
 * recursive code downstream (`JSON.stringify`, schema validation), so it is refused as it is read:
 * a linear scan of the raw bytes before parsing, as body-parser's `verify` hook.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The `type` body-parser keeps on the error (the exception filter answers it as 400 `BODY_TOO_DEEP`). */
export const BODY_TOO_DEEP_TYPE = 'entity.too.deep';

/** The deepest nesting of objects and arrays in JSON text (brackets inside strings do not count). */
export function jsonDepthOf(raw: Uint8Array, stopAbove = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < raw.length; index += 1) {
    const byte = raw[index];
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth -= 1;
  }
  return deepest;
}

/** body-parser `verify`: throws on a body nested deeper than MAX_JSON_DEPTH. */
export function refuseDeepJson(_req: unknown, _res: unknown, raw: Buffer): void {
  if (jsonDepthOf(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw Object.assign(new Error(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`), { type: BODY_TOO_DEEP_TYPE });
  }
}

/** The copy of inputs/outputs kept in a log record, and whether it had to be cut. */
export interface CappedCopy {
  value: Record<string, unknown>;
  truncated: boolean;
}

export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

function cutToBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    bytes += utf8ByteLength(character);
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}

/** JSON text of a value; values JSON cannot represent (cycles, BigInt) are described instead of thrown. */
export function toJsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return JSON.stringify(String(value));
  }
}

/** Size of a value as JSON, in UTF-8 bytes. */
export function jsonByteLength(value: unknown): number {
  return utf8ByteLength(toJsonText(value));
}

/** Whether a value's JSON fits in `maxBytes`, without counting bytes when its length alone settles it. */
function fitsAsJson(value: unknown, maxBytes: number): boolean {
  const text = toJsonText(value);
  // A UTF-16 code unit is at most 3 UTF-8 bytes (a surrogate pair, 2 units, is 4).
  return text.length * 3 <= maxBytes || (text.length <= maxBytes && utf8ByteLength(text) <= maxBytes);
}

/**
 * Keeps values whole while they fit in `maxBytes` (JSON size); the value that crosses the cap
 * becomes a cut preview of its text, later ones become ''. Keys stay, so the shape stays visible.
 */
export function capForLog(values: Record<string, unknown>, maxBytes: number): CappedCopy {
  if (fitsAsJson(values, maxBytes)) return { value: values, truncated: false };
  const capped: Record<string, unknown> = {};
  let budget = maxBytes;
  for (const [key, item] of Object.entries(values)) {
    const text = typeof item === 'string' ? item : toJsonText(item);
    const bytes = utf8ByteLength(text);
    if (bytes <= budget) {
      capped[key] = item;
      budget -= bytes;
    } else {
      capped[key] = cutToBytes(text, budget);
      budget = 0;
    }
  }
  return { value: capped, truncated: true };
}

/**
 * The end of a build log for an agent: its last `maxLines` lines, at most `maxBytes`
 * bytes (UTF-8) of them, cut at a line's start, so a long log neither floods the
 * agent's context nor shows half a line (unless the last line alone is larger than
 * `maxBytes`: then its end). `truncated` says that earlier text exists.
 */
export function logTail(log: string, maxLines: number, maxBytes: number): { text: string; lines: number; truncated: boolean } {
  const all = log.split('\n');
  if (all.at(-1) === '') all.pop();
  const kept: string[] = [];
  let bytes = 0;
  for (let i = all.length - 1; i >= 0 && kept.length < maxLines; i--) {
    const size = Buffer.byteLength(all[i]) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    kept.push(all[i]);
  }
  if (kept.length === 0 && all.length > 0) {
    // Whole characters of the last line's end: a string of at most maxBytes bytes, cut at a code point.
    const chars = [...all[all.length - 1]];
    let end = '';
    for (let i = chars.length - 1; i >= 0 && Buffer.byteLength(chars[i] + end) + 1 <= maxBytes; i--) end = chars[i] + end;
    return { text: `${end}\n`, lines: 1, truncated: true };
  }
  kept.reverse();
  return { text: kept.length ? `${kept.join('\n')}\n` : '', lines: kept.length, truncated: kept.length < all.length };
}

/** What a secret becomes in a build's log. */
export const MASK = '***';

/**
 * Shorter values are not masked: masking `1`, `on` or `dev` would star out every such
 * run of characters in the log (and so tell the value anyway). Nothing that short is a
 * secret; docs/decisions.md says so to users.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every secret in `text` by ***. Longest first, so a secret that contains
 * another is masked whole.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(MASK);
  return out;
}

/** The secrets to mask, longest first; multi-line values also line by line (the log is cut by line). */
export function secretsOf(values: Iterable<string | null | undefined>): string[] {
  const set = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    for (const part of [value, ...value.split(/\r?\n/)]) {
      const trimmed = part.trim();
      if (trimmed.length >= MIN_SECRET_LENGTH) set.add(trimmed);
    }
  }
  return [...set].sort((a, b) => b.length - a.length);
}

/**
 * A stream of output chunks turned into masked lines. Chunks cut anywhere (a secret
 * may arrive half in one, half in the next), so only whole lines are masked and
 * passed on; the unfinished tail waits for its newline, or for `flush` at the end.
 * A line longer than `maxLine` is passed on in pieces that overlap nothing: a secret
 * straddling such a cut is the price of a bounded buffer (a secret is far shorter).
 */
export class LineMasker {
  private pending = '';

  constructor(
    private readonly secrets: readonly string[],
    private readonly emit: (line: string) => void,
    private readonly maxLine = 64 * 1024,
  ) {}

  write(chunk: string): void {
    this.pending += chunk;
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) !== -1) {
      const line = this.pending.slice(0, newline).replace(/\r$/, '');
      this.pending = this.pending.slice(newline + 1);
      this.emit(maskSecrets(line, this.secrets));
    }
    while (this.pending.length > this.maxLine) {
      this.emit(maskSecrets(this.pending.slice(0, this.maxLine), this.secrets));
      this.pending = this.pending.slice(this.maxLine);
    }
  }

  /** Passes on what is left without a newline (the command ended). */
  flush(): void {
    if (this.pending.length > 0) this.emit(maskSecrets(this.pending, this.secrets));
    this.pending = '';
  }
}

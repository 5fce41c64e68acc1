import type { BuildPhase } from '../pipeline/types';

/**
 * A build's log lines as the API serves them: `<ISO-8601 timestamp> [<phase>] <text>`.
 * Output without a trailing newline still makes a line; a carriage return (progress bars)
 * keeps only what was drawn last, as a terminal would show it.
 */
export function formatLines(at: Date, phase: BuildPhase, text: string): string {
  const stamp = at.toISOString();
  // A NUL (find -print0, binary output) cannot be stored in a text column: the batch holding it would be lost.
  const lines = text
    .replace(/\r\n/g, '\n')
    .replace(/\u0000/g, '\uFFFD')
    .split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => `${stamp} [${phase}] ${line.slice(line.lastIndexOf('\r') + 1)}\n`).join('');
}

/**
 * Keeps a log under `maxBytes`: once the next text would pass it, one last line says
 * where and why the log was cut, and everything after is dropped (the build goes on).
 */
export class LogCap {
  private used = 0;
  private cut = false;

  constructor(private readonly maxBytes: number) {}

  get truncated(): boolean {
    return this.cut;
  }

  /** What of `text` (whole lines) may still be kept: all of it, the note that the log was cut, or ''. */
  admit(text: string, at: Date, phase: BuildPhase): string {
    if (this.cut) return '';
    const size = Buffer.byteLength(text);
    if (this.used + size <= this.maxBytes) {
      this.used += size;
      return text;
    }
    this.cut = true;
    return formatLines(at, phase, `… log cut here: it reached ${this.maxBytes} bytes (BUILD_LOG_MAX_BYTES); the rest of the output is not kept`);
  }
}

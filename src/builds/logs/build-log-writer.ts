import type { Logger } from '@nestjs/common';

import type { BuildLogSink, BuildPhase } from '../pipeline/types';
import type { BuildLogRepository } from './build-log.repository';
import { formatLines, LogCap } from './log-lines';

/** How long lines wait to be appended together: followers see them about this late, and a chatty install costs one insert per interval. */
const FLUSH_MS = 200;
/** A buffer this large is appended at once. */
const FLUSH_BYTES = 64 * 1024;

/**
 * A running build's log: lines are stamped, capped (BUILD_LOG_MAX_BYTES) and appended to
 * `build_log_chunks` in small batches, in order. `close` appends what is left.
 */
export class BuildLogWriter implements BuildLogSink {
  private readonly cap: LogCap;
  private buffer = '';
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly buildId: string,
    private readonly chunks: BuildLogRepository,
    maxBytes: number,
    private readonly now: () => Date,
    private readonly logger: Logger,
  ) {
    this.cap = new LogCap(maxBytes);
  }

  write(phase: BuildPhase, text: string, _stream?: 'stdout' | 'stderr' | 'system'): void {
    const at = this.now();
    this.buffer += this.cap.admit(formatLines(at, phase, text), at, phase);
    if (this.buffer.length >= FLUSH_BYTES) this.flush();
    else if (this.buffer && !this.timer) this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Appends everything written so far; resolves once it is in the database. */
  async close(): Promise<void> {
    this.flush();
    await this.chain;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.buffer) return;
    const text = this.buffer;
    this.buffer = '';
    // One append after the other, so chunk ids keep the lines' order.
    this.chain = this.chain.then(() =>
      this.chunks.append(this.buildId, text).catch((err: Error) => this.logger.error(`build ${this.buildId}: log lines lost: ${err.message}`)),
    );
  }
}

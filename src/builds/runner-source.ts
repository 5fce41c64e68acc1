import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { RunnerSource } from './ports';
import { ProcessRunner } from './runner/process-runner';
import type { BuildRunner } from './runner/runner';
import { selectRunner } from './runner/select-runner';

/** The runner of this process, chosen once (selectRunner); an unavailable one answers the same BuildsUnavailableError each time. */
@Injectable()
export class SelectedRunner extends RunnerSource {
  private readonly logger = new Logger('BuildRunner');
  private chosen?: { runner: BuildRunner } | { error: unknown };

  constructor(private readonly config: AppConfig) {
    super();
  }

  runner(): BuildRunner {
    this.chosen ??= this.choose();
    if ('error' in this.chosen) throw this.chosen.error;
    return this.chosen.runner;
  }

  private choose(): { runner: BuildRunner } | { error: unknown } {
    try {
      return { runner: selectRunner(this.config, undefined, { createProcessRunner: () => new ProcessRunner(), warn: (m) => this.logger.warn(m) }) };
    } catch (error) {
      return { error };
    }
  }
}

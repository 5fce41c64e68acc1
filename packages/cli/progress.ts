import { SingleBar } from 'cli-progress';

import type { DeployProgress } from '../sdk';
import type { Io } from './context';
import { formatBytes } from './format';

/**
 * Upload progress on stderr: a bar when stderr is a terminal, else nothing (the
 * summary lines say what was uploaded), so CI logs are not flooded.
 */
export function uploadProgress(io: Io, enabled: boolean): { update(p: DeployProgress): void; stop(): void } {
  if (!enabled || !io.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  let bar: SingleBar | undefined;
  return {
    update(p) {
      if (p.phase !== 'uploading') return;
      const payload = { files: `${p.filesDone}/${p.filesTotal} files`, bytes: `${formatBytes(p.bytesDone)}/${formatBytes(p.bytesTotal)}` };
      if (!bar) {
        bar = new SingleBar({
          format: 'Uploading [{bar}] {percentage}% | {files} | {bytes}',
          stream: io.stderr as NodeJS.WritableStream,
          hideCursor: true,
          clearOnComplete: true,
        });
        bar.start(p.bytesTotal || 1, p.bytesDone, payload);
      } else {
        bar.update(p.bytesDone, payload);
      }
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}

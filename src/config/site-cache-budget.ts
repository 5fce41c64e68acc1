import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';

const MB = 1024 * 1024;
/** The default takes this share of the instance's memory... */
const DEFAULT_SHARE = 1 / 8;
/** ...within these bounds: small containers still cache a few thousand sites, big hosts leave memory to the file cache and the OS. */
const DEFAULT_MIN_BYTES = 32 * MB;
const DEFAULT_MAX_BYTES = 2048 * MB;

/**
 * The site router's memory budget (site states, manifests, unknown hosts, compressed-copy
 * knowledge), in bytes: SITE_CACHE_MB when set, else an eighth of the memory this
 * process may use (the cgroup limit when there is one, else the machine's), between
 * 32 MB and 2 GB. File bytes have their own bound (SITE_FILE_CACHE_BYTES).
 */
export function siteCacheBudgetBytes(configuredMb: number | undefined, memory: { total: number; cgroupLimit: number | null }): number {
  if (configuredMb !== undefined) return Math.max(1, Math.floor(configuredMb * MB));
  const available = memory.cgroupLimit !== null && memory.cgroupLimit < memory.total ? memory.cgroupLimit : memory.total;
  return Math.min(DEFAULT_MAX_BYTES, Math.max(DEFAULT_MIN_BYTES, Math.floor(available * DEFAULT_SHARE)));
}

/** cgroup v2 `memory.max` (or v1 `memory.limit_in_bytes`) of this process: null when unlimited or unreadable. */
export function parseCgroupLimit(text: string | undefined): number | null {
  const value = text?.trim();
  if (!value || value === 'max' || !/^\d+$/.test(value)) return null;
  const bytes = Number(value);
  // cgroup v1 says "unlimited" with a huge page-rounded number.
  return bytes > 0 && bytes < 2 ** 62 ? bytes : null;
}

export function instanceMemory(): { total: number; cgroupLimit: number | null } {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  const limit = parseCgroupLimit(read('/sys/fs/cgroup/memory.max')) ?? parseCgroupLimit(read('/sys/fs/cgroup/memory/memory.limit_in_bytes'));
  return { total: totalmem(), cgroupLimit: limit };
}

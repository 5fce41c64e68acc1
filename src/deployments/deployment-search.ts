import { isId } from '../common/ids';
import type { DeploymentListFilter } from './deployments.repository';

/** Versions are PostgreSQL integers: a larger number names none. */
const MAX_VERSION = 2_147_483_647;

/**
 * What a search of a deployment history means (the `search` parameter's description):
 * `12` or `v12` a version, a whole `usr_`/`tok_` id who deployed, anything else the start
 * of a deployment id with or without `dep_`. `{}` for no search; null when the text can
 * name no deployment.
 */
export function searchFilter(search: string | undefined): Omit<DeploymentListFilter, 'status'> | null {
  if (search === undefined) return {};
  const text = search.toLowerCase();
  const version = /^v?(\d+)$/.exec(text);
  if (version) {
    const n = Number(version[1]);
    return n >= 1 && n <= MAX_VERSION ? { version: n } : null;
  }
  // Asked as booleans: isId's type guard would narrow `text` to never below.
  const deployer: boolean = isId('usr', text) || isId('tok', text);
  if (deployer) return { createdBy: text };
  const body = text.startsWith('dep_') ? text.slice(4) : text;
  return /^[0-9a-z]*$/.test(body) ? { idPrefix: `dep_${body}` } : null;
}

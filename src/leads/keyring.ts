import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { LRUCache } from 'lru-cache';

import { randomString } from '../common/ids';
import { loadOrCreateSecret } from '../common/secret-file';
import { KEY_BYTES, WorkspaceIndex } from './lead-crypto';

export interface LeadKey {
  id: string;
  key: Buffer;
}

export const ENCRYPTION_KEYS_FILE = 'leads-encryption.keys';
export const INDEX_KEY_FILE = 'leads-index.key';

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Parses `<keyId>:<base64 key>[,<keyId>:<base64 key>...]` (standard or URL-safe
 * base64 of exactly 32 bytes). Errors name `source` and the key id, never the key.
 */
export function parseKeyList(value: string, source: string): LeadKey[] {
  const keys: LeadKey[] = [];
  const entries = value.trim().split(',');
  for (const [n, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const id = colon === -1 ? '' : entry.slice(0, colon).trim();
    const encoded = colon === -1 ? '' : entry.slice(colon + 1).trim();
    if (!KEY_ID.test(id)) throw new Error(`${source}: entry ${n + 1} must be <keyId>:<base64 key>, the key id made of letters, digits, _ and - (at most 32)`);
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) throw new Error(`${source}: key ${id} is not base64`);
    const key = Buffer.from(encoded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`${source}: key ${id} must be ${KEY_BYTES} bytes (44 base64 characters), not ${key.length}`);
    if (keys.some((k) => k.id === id)) throw new Error(`${source}: key id ${id} appears twice`);
    keys.push({ id, key });
  }
  if (keys.length === 0) throw new Error(`${source}: no key`);
  return keys;
}

/** A new `<keyId>:<base64 key>` entry, as the generated key files hold and as operators add in front when rotating. */
export function newKeyEntry(prefix: string): string {
  return `${prefix}${randomString(8)}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

export interface KeyringConfig {
  LEADS_ENCRYPTION_KEYS?: string;
  LEADS_INDEX_KEY?: string;
  DATA_DIR: string;
}

/**
 * The keys of leads: encryption keys (the first seals, every one opens) and the
 * master index key from which each workspace's blind-index keys are derived.
 */
export class LeadsKeyring {
  private readonly byId: Map<string, Buffer>;
  private readonly indexes = new LRUCache<string, WorkspaceIndex>({ max: 1000 });

  constructor(
    readonly encryptionKeys: LeadKey[],
    private readonly indexKey: LeadKey,
  ) {
    if (encryptionKeys.length === 0) throw new Error('at least one leads encryption key is needed');
    this.byId = new Map(encryptionKeys.map((k) => [k.id, k.key]));
  }

  /**
   * From LEADS_ENCRYPTION_KEYS / LEADS_INDEX_KEY, or from the files generated once
   * under DATA_DIR (mode 0600) when those are unset.
   */
  static async load(config: KeyringConfig): Promise<LeadsKeyring> {
    const encryption =
      config.LEADS_ENCRYPTION_KEYS !== undefined
        ? parseKeyList(config.LEADS_ENCRYPTION_KEYS, 'LEADS_ENCRYPTION_KEYS')
        : parseKeyList(
            await loadOrCreateSecret(join(config.DATA_DIR, ENCRYPTION_KEYS_FILE), () => newKeyEntry('k')),
            join(config.DATA_DIR, ENCRYPTION_KEYS_FILE),
          );
    const indexSource = config.LEADS_INDEX_KEY !== undefined ? 'LEADS_INDEX_KEY' : join(config.DATA_DIR, INDEX_KEY_FILE);
    const indexKeys = parseKeyList(
      config.LEADS_INDEX_KEY ?? (await loadOrCreateSecret(join(config.DATA_DIR, INDEX_KEY_FILE), () => newKeyEntry('i'))),
      indexSource,
    );
    if (indexKeys.length !== 1) throw new Error(`${indexSource}: exactly one index key is used (change it with a reindex, see docs/security.md)`);
    return new LeadsKeyring(encryption, indexKeys[0]);
  }

  /** The key that seals new and rotated leads. */
  get current(): LeadKey {
    return this.encryptionKeys[0];
  }

  key(id: string): Buffer | undefined {
    return this.byId.get(id);
  }

  /**
   * A key for `purpose` derived from the index key (HMAC-SHA256): every instance shares the
   * index key and it changes only with a reindex, unlike the encryption keys' current one.
   */
  derivedKey(purpose: string): Buffer {
    return createHmac('sha256', this.indexKey.key).update(`statichost-derived:${purpose}`).digest();
  }

  get indexKeyId(): string {
    return this.indexKey.id;
  }

  index(workspaceId: string): WorkspaceIndex {
    let index = this.indexes.get(workspaceId);
    if (!index) {
      index = new WorkspaceIndex(this.indexKey.id, this.indexKey.key, workspaceId);
      this.indexes.set(workspaceId, index);
    }
    return index;
  }
}

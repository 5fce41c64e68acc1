import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The cryptography of leads, as pure functions (docs/security.md, "Leads:
 * encryption and search"):
 * - an email is sealed with AES-256-GCM under a fresh random 96-bit nonce, the
 *   lead's project and id as additional authenticated data, so a ciphertext moved
 *   to another row no longer opens;
 * - each workspace gets its own blind-index keys, derived with HKDF from one
 *   master index key: a keyed digest of (project, email) dedupes, and keyed
 *   trigram tokens truncated to TOKEN_BITS bits make substring search indexable.
 */

export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/** Bits of a trigram's keyed digest kept in its token: 16,384 buckets, each shared by several trigrams. */
export const TOKEN_BITS = 14;
/** The rest of the (positive int4) token is a per-workspace tag, so each workspace's tokens sit apart in the GIN index. */
const TAG_BITS = 31 - TOKEN_BITS;

export interface SealedEmail {
  nonce: Buffer;
  /** Ciphertext followed by the 16-byte GCM tag. */
  ciphertext: Buffer;
}

/** What binds a sealed domain of the workspace's domain dictionary (lead_domains) to its row. */
export function domainAad(workspaceId: string, domainHash: Buffer): Buffer {
  return Buffer.from(`statichost-lead-domain:v1:${workspaceId}:${domainHash.toString('hex')}`, 'utf8');
}

/**
 * A normalised email's local part and domain, split at its last '@' (a quoted local
 * part may hold others). A search text without '@' that an email contains lies wholly
 * in one of the two: that is what lets the domain dictionary decide matches exactly.
 */
export function splitEmail(email: string): { local: string; domain: string } {
  const at = email.lastIndexOf('@');
  return at === -1 ? { local: email, domain: '' } : { local: email.slice(0, at), domain: email.slice(at + 1) };
}

/** What binds a ciphertext to its row. */
export function leadAad(projectId: string, leadId: string): Buffer {
  return Buffer.from(`statichost-lead:v1:${projectId}:${leadId}`, 'utf8');
}

export function sealEmail(key: Buffer, email: string, aad: Buffer): SealedEmail {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(email, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { nonce, ciphertext };
}

/** The email, or null when the ciphertext, nonce, key or row binding does not authenticate. */
export function openEmail(key: Buffer, sealed: SealedEmail, aad: Buffer): string | null {
  const { nonce, ciphertext } = sealed;
  if (nonce.length !== NONCE_BYTES || ciphertext.length < TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - TAG_BYTES)), decipher.final()]);
    return plain.toString('utf8');
  } catch {
    return null;
  }
}

/** Where one sealed email sits in a buffer: its 12-byte nonce, then its ciphertext (without the tag) up to `end`. */
export interface SealedSlice {
  buf: Buffer;
  nonceAt: number;
  bodyAt: number;
  end: number;
}

/** A sealed email's nonce and ciphertext without its tag, as one slice (tests and single rows). */
export function sliceOf(sealed: SealedEmail): SealedSlice {
  const buf = Buffer.concat([sealed.nonce, sealed.ciphertext]);
  return { buf, nonceAt: 0, bodyAt: sealed.nonce.length, end: Math.max(sealed.nonce.length, buf.length - TAG_BYTES) };
}

/**
 * Decrypts many GCM ciphertexts sealed under one key, WITHOUT checking their tags:
 * for filtering search candidates only, never for output.
 *
 * GCM encrypts with AES in counter mode: with a 96-bit nonce, block i of the
 * message is XORed with AES_K(nonce || uint32be(i + 2)). Computing every
 * candidate's counter blocks with one AES-ECB call costs a fraction of opening
 * each row with its own GCM decipher (about 8 µs a row), which is what makes
 * searching hundreds of thousands of candidates affordable. Anything the service
 * returns is opened again with openEmail(), tag and all; a tampered row may at
 * worst be counted by a search, never shown.
 *
 * The plaintexts land in one buffer, row i at `slots[i]`, each followed by zero
 * bytes up to `slots[i + 1]` (at least one), so a search of the whole buffer can
 * never match across two rows.
 */
export function keystreamDecrypt(key: Buffer, rows: readonly SealedSlice[]): { plain: Buffer; slots: Int32Array } {
  const slots = new Int32Array(rows.length + 1);
  let total = 0;
  for (let r = 0; r < rows.length; r++) {
    slots[r] = total;
    total += (Math.floor(Math.max(0, rows[r].end - rows[r].bodyAt) / 16) + 1) * 16;
  }
  slots[rows.length] = total;
  const counters = Buffer.allocUnsafe(total);
  for (let r = 0; r < rows.length; r++) {
    const { buf, nonceAt, bodyAt } = rows[r];
    const nonceOk = bodyAt - nonceAt === NONCE_BYTES;
    for (let at = slots[r], block = 2; at < slots[r + 1]; at += 16, block++) {
      if (nonceOk) buf.copy(counters, at, nonceAt, bodyAt);
      else counters.fill(0, at, at + NONCE_BYTES);
      counters.writeUInt32BE(block, at + NONCE_BYTES);
    }
  }
  const ecb = createCipheriv('aes-256-ecb', key, null);
  ecb.setAutoPadding(false);
  const plain = total > 0 ? Buffer.concat([ecb.update(counters), ecb.final()]) : Buffer.alloc(0);
  for (let r = 0; r < rows.length; r++) {
    const { buf, bodyAt, end } = rows[r];
    const start = slots[r];
    const length = Math.max(0, end - bodyAt);
    for (let i = 0; i < length; i++) plain[start + i] ^= buf[bodyAt + i];
    plain.fill(0, start + length, slots[r + 1]);
  }
  return { plain, slots };
}

/** Indexes of the rows whose decrypted bytes contain `needle` (tags unchecked, see keystreamDecrypt). */
export function keystreamMatches(key: Buffer, rows: readonly SealedSlice[], needle: Buffer): number[] {
  if (needle.length === 0) return rows.map((_, i) => i);
  // No email holds a NUL byte (the gate refuses control characters), and the slots' padding is made of them.
  if (needle.includes(0)) return [];
  const { plain, slots } = keystreamDecrypt(key, rows);
  const found: number[] = [];
  let row = 0;
  for (let at = plain.indexOf(needle); at !== -1; at = plain.indexOf(needle, slots[row + 1])) {
    while (slots[row + 1] <= at) row++;
    found.push(row);
    if (row + 1 >= rows.length) break;
  }
  return found;
}

/** The one form a lead's email is stored, deduped and searched in. */
export function normalizeLeadText(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

/** Distinct trigrams (of code points) of an already normalised text; none under 3 characters. */
export function trigrams(text: string): string[] {
  const chars = Array.from(text);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) out.add(chars[i] + chars[i + 1] + chars[i + 2]);
  return [...out];
}

const HKDF_SALT = Buffer.from('statichost/leads-index/v1', 'utf8');

function derive(master: Buffer, purpose: string, workspaceId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, HKDF_SALT, `${purpose}\u0000${workspaceId}`, KEY_BYTES));
}

/** Most trigrams a WorkspaceIndex remembers the token of (a few hundred KB). */
const TOKEN_MEMO_LIMIT = 50_000;

/** The blind indexes of one workspace, under keys no other workspace shares. */
export class WorkspaceIndex {
  private readonly dedupeKey: Buffer;
  private readonly trigramKey: Buffer;
  private readonly domainKey: Buffer;
  private readonly tag: number;
  private readonly memo = new Map<string, number>();

  constructor(
    /** Id of the master index key these were derived from (stored as `index_key_id`). */
    readonly keyId: string,
    master: Buffer,
    readonly workspaceId: string,
  ) {
    this.dedupeKey = derive(master, 'dedupe', workspaceId);
    this.trigramKey = derive(master, 'trigram', workspaceId);
    this.domainKey = derive(master, 'domain', workspaceId);
    this.tag = derive(master, 'tag', workspaceId).readUInt32BE(0) >>> (32 - TAG_BITS);
  }

  /** Keyed digest of (project, normalised email): equal for the same email on the same project only. */
  emailHash(projectId: string, email: string): Buffer {
    return createHmac('sha256', this.dedupeKey).update(`${projectId}\u0000${email}`, 'utf8').digest();
  }

  /** Keyed digest of an email's domain: equal for the leads of the workspace that share a domain. */
  domainHash(domain: string): Buffer {
    return createHmac('sha256', this.domainKey).update(domain, 'utf8').digest();
  }

  token(trigram: string): number {
    let token = this.memo.get(trigram);
    if (token === undefined) {
      const digest = createHmac('sha256', this.trigramKey).update(trigram, 'utf8').digest();
      token = ((this.tag << TOKEN_BITS) | (digest.readUInt16BE(0) & ((1 << TOKEN_BITS) - 1))) >>> 0;
      if (this.memo.size >= TOKEN_MEMO_LIMIT) this.memo.clear();
      this.memo.set(trigram, token);
    }
    return token;
  }

  /** Distinct tokens of a normalised text's trigrams, ascending ([] under 3 characters). */
  tokens(text: string): number[] {
    return [...new Set(trigrams(text).map((t) => this.token(t)))].sort((a, b) => a - b);
  }
}

import { randomBytes } from 'node:crypto';

export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** The TXT record that proves control of `domain` lives at this name. */
export const CHALLENGE_LABEL = '_statichost-challenge';

export function challengeName(domain: string): string {
  return `${CHALLENGE_LABEL}.${domain}`;
}

/** 128 random bits, hex: fits one TXT string and is not guessable. */
export function newDomainToken(): string {
  return randomBytes(16).toString('hex');
}

/** A DNS record the owner of the domain creates. */
export interface DnsRecord {
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
}

/** The records to create for `domain`: the TXT challenge (it decides) and the CNAME that sends visitors here. */
export function recordsToCreate(domain: string, token: string, cnameTarget: string): DnsRecord[] {
  return [
    { type: 'TXT', name: challengeName(domain), value: token },
    { type: 'CNAME', name: domain, value: cnameTarget },
  ];
}

/**
 * What DNS said about one name: an answer (possibly empty: NXDOMAIN or no record
 * of the type), `broken` when the resolver answered that the name's own servers
 * fail (SERVFAIL: what a lapsed or lame delegation looks like), or `unreachable`
 * when our resolvers did not answer at all (time-out, refused): our outage, which
 * says nothing about the domain.
 */
export type Lookup = { kind: 'answer'; values: string[] } | { kind: 'broken'; code: string } | { kind: 'unreachable'; code: string; timedOut: boolean };

export interface RecordCheck {
  type: DnsRecord['type'];
  name: string;
  expected: string;
  found: string[];
  ok: boolean;
  /** Why nothing was found when DNS failed rather than answered (e.g. `ESERVFAIL`). */
  error: string | null;
}

/**
 * `verified`: the token is published; `absent`: DNS answered and it is not there
 * (or the domain's DNS is broken); `inconclusive`: our resolvers did not answer.
 */
export type Verdict = 'verified' | 'absent' | 'inconclusive';

const canonicalName = (s: string) => s.trim().toLowerCase().replace(/\.$/, '');

function recordCheck(record: DnsRecord, lookup: Lookup, matches: (found: string) => boolean): RecordCheck {
  const found = lookup.kind === 'answer' ? lookup.values : [];
  return {
    type: record.type,
    name: record.name,
    expected: record.value,
    found,
    ok: found.some(matches),
    error: lookup.kind === 'answer' ? null : lookup.code,
  };
}

/** Judges the lookups against the expected records. Only the TXT token decides; the CNAME is reported to help. */
export function judge(expected: DnsRecord[], txt: Lookup, cname: Lookup): { verdict: Verdict; records: RecordCheck[] } {
  const [txtRecord, cnameRecord] = expected;
  const records = [
    recordCheck(txtRecord, txt, (v) => v.trim() === txtRecord.value),
    recordCheck(cnameRecord, cname, (v) => canonicalName(v) === canonicalName(cnameRecord.value)),
  ];
  const verdict: Verdict = txt.kind === 'unreachable' ? 'inconclusive' : records[0].ok ? 'verified' : 'absent';
  return { verdict, records };
}

/** The domain columns the verification state machine reads and writes. */
export interface DomainState {
  status: DomainStatus;
  verifiedAt: Date | null;
  checkedAt: Date | null;
  failingSince: Date | null;
}

/**
 * The next state after a conclusive check at `now`.
 * - token present: verified (a failed or pending domain becomes verified again;
 *   `verifiedAt` keeps the first time of an unbroken verified run).
 * - token absent on a pending or failed domain: unchanged.
 * - token absent on a verified domain: it keeps serving while failures last less
 *   than `failAfterMs` counted from the first failure of the run, then `failed`.
 */
export function nextDomainState(current: DomainState, verdict: Exclude<Verdict, 'inconclusive'>, now: Date, failAfterMs: number): DomainState {
  if (verdict === 'verified') {
    return {
      status: 'verified',
      verifiedAt: current.status === 'verified' && current.verifiedAt ? current.verifiedAt : now,
      checkedAt: now,
      failingSince: null,
    };
  }
  if (current.status !== 'verified') return { ...current, checkedAt: now };
  const failingSince = current.failingSince ?? now;
  if (now.getTime() - failingSince.getTime() >= failAfterMs) {
    return { status: 'failed', verifiedAt: current.verifiedAt, checkedAt: now, failingSince };
  }
  return { ...current, checkedAt: now, failingSince };
}

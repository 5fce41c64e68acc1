import { promises as dns } from 'node:dns';

import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { Lookup } from '../shared/custom-domain/domain-check';

/** NXDOMAIN or no record of the type: a definite "there is none". */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND']);
/** The resolver answered, and the answer is that the name's own DNS is failing. */
const BROKEN = new Set(['ESERVFAIL']);
/** No answer in time: c-ares' own time-out, or our deadline cancelling the query. */
const TIMED_OUT = new Set(['ETIMEOUT', 'ECANCELLED']);

/** What a lookup error code means for verification (see `Lookup`). */
export function classifyDnsError(code: string | undefined): Lookup {
  const c = code ?? 'EUNKNOWN';
  if (ABSENT.has(c)) return { kind: 'answer', values: [] };
  if (BROKEN.has(c)) return { kind: 'broken', code: c };
  return { kind: 'unreachable', code: c, timedOut: TIMED_OUT.has(c) };
}

/** `DNS_SERVERS` as node:dns wants it: `1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`, `2001:db8::1`. */
/**
 * Looks up the verification records with node:dns (c-ares), against DNS_SERVERS
 * when set (tests and private networks point it anywhere), else the system's
 * resolvers. Every check gets a fresh Resolver: c-ares caches answers per channel,
 * and a verification must see the record as it is now; it also lets one deadline
 * cancel exactly this check's queries.
 */
@Injectable()
export class DomainDns {
  private readonly servers: string[];

  constructor(private readonly config: AppConfig) {
    this.servers = config.dnsServers;
    // Fail at start-up, naming the variable, rather than at the first verification.
    if (this.servers.length > 0) {
      try {
        new dns.Resolver().setServers(this.servers);
      } catch (err) {
        throw new Error(`Invalid configuration:\n  DNS_SERVERS=${JSON.stringify(config.DNS_SERVERS)}: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  /** Which servers answer (for error messages). */
  describeServers(): string {
    return this.servers.length > 0 ? this.servers.join(', ') : 'the system resolvers';
  }

  get timeoutMs(): number {
    return this.config.DNS_TIMEOUT_MS;
  }

  /** TXT values (each record's strings joined) and CNAME targets of the names, within DNS_TIMEOUT_MS. */
  async lookup(txtName: string, cnameName: string): Promise<{ txt: Lookup; cname: Lookup }> {
    const timeout = this.config.DNS_TIMEOUT_MS;
    const resolver = new dns.Resolver({ timeout, tries: 1 });
    if (this.servers.length > 0) resolver.setServers(this.servers);
    // c-ares' timeout is per try and server and grows between tries: this deadline is the promise.
    const deadline = setTimeout(() => resolver.cancel(), timeout);
    try {
      const [txt, cname] = await Promise.all([
        resolver.resolveTxt(txtName).then(
          (records): Lookup => ({ kind: 'answer', values: records.map((chunks) => chunks.join('')) }),
          (err: NodeJS.ErrnoException) => classifyDnsError(err.code),
        ),
        resolver.resolveCname(cnameName).then(
          (targets): Lookup => ({ kind: 'answer', values: targets }),
          (err: NodeJS.ErrnoException) => classifyDnsError(err.code),
        ),
      ]);
      return { txt, cname };
    } finally {
      clearTimeout(deadline);
    }
  }
}

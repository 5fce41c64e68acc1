import { EventEmitter } from 'node:events';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { blobKey } from '../blobs/blob-keys';
import { BlobVariants, VARIANTS_BUDGET_SHARE } from '../blobs/blob-variants.service';
import { isDatabaseUnavailable } from '../common/db-errors';
import { AppConfig } from '../config/app-config';
import { type DeploymentManifestRow, DeploymentsRepository, type ManifestRow } from '../deployments/deployments.repository';
import { MetricsService } from '../metrics/metrics.service';
import { PreviewsRepository } from '../previews/previews.repository';
import type { GateType, ProjectType } from '../projects/project.entity';
import { ProjectsRepository, type SiteRow } from '../projects/projects.repository';
import { noticeKey, SITE_CHANGED_CHANNEL, siteChangesOnCommit } from '../projects/site-events';
import type { DeclaredForm } from '../shared/forms/declared-form';
import { PREVIEW_SEPARATOR, previewLabel, PreviewTarget } from '../shared/preview-label';
import { HeaderChanges, HeaderRules, NO_HEADER_RULES, parseHeaders } from '../shared/site-rules/headers';
import { NO_REDIRECTS, parseRedirects, RedirectRules } from '../shared/site-rules/redirects';
import { NO_NEEDS, RequestNeeds } from '../shared/site-rules/request-context';
import { RULE_FILES, siteRuleNeeds } from '../shared/site-rules/resolve';
import { MAX_RULE_FILE_BYTES, ParseResult } from '../shared/site-rules/rule-file';
import { StorageProvider } from '../storage/storage.provider';
import { ChargedMap, stringBytes } from './cache/charged-map';
import { LoadBatches } from './cache/load-batches';
import { LoadQueue } from './cache/load-queue';
import { PackedManifest, type SiteFile, type SiteFiles } from './cache/packed-manifest';
import { warmHostOf } from './warm-start/warm-hosts';

export type { SiteFile, StoredBody } from './cache/packed-manifest';

/**
 * A file answer as the router sends it, prepared once per answer of a site state (the
 * site's gate, CDN tags and `_headers` changes do not change within one state): the
 * whole-file headers per representation are built on first use, so a request to a
 * cached file only picks an array for writeHead.
 */
export interface FileSend {
  file: SiteFile;
  status: number;
  cacheControl: string;
  gated: boolean;
  /** Site-wide headers (CDN cache tags, HSTS), as name/value pairs. */
  tags: string[];
  rules: HeaderChanges;
  html: boolean;
  /** Whole-file headers with `rules` applied, by representation (the router's index). */
  heads: (string[] | undefined)[];
}

export interface LiveDeployment {
  id: string;
  /** Unix milliseconds, or null for `forever`. */
  expiresAt: number | null;
  expired: boolean;
  /** Servable files: without the root `_redirects` and `_headers`, which are rules. */
  files: SiteFiles;
  rules: SiteRules;
  /** The forms it declares (issue 30): a POST is a form submission only on a deployment with some. */
  forms: DeclaredForm[];
  /** Estimated memory of `files` and `rules` (the cache's budget). */
  bytes: number;
}

/** What a request target answers on a site (the router's memo, per site state). */
export type SiteAnswer =
  | {
      kind: 'file';
      file: SiteFile;
      status: 200 | 404;
      /** Served under its own, content-hashed name: cacheable for a year. */
      immutable: boolean;
      /** What `_headers` does to this answer (already limited for a gated site). */
      rules: HeaderChanges;
      /** Built by the router on the first request this answers. */
      send?: FileSend;
    }
  | { kind: 'redirect'; status: number; location: string }
  /** A `_redirects` proxy rule (src/sites/proxy): depends on the query string, so memoised per URL like a redirect. */
  | { kind: 'proxy'; url: string; signed: string | null }
  | { kind: 'not_found' };

/** A deployment's compiled `_redirects` and `_headers` (empty when it has none). */
export interface SiteRules {
  redirects: RedirectRules;
  headers: HeaderRules;
  /** What of a request beyond its path and query both files read (siteRuleNeeds). */
  needs: RequestNeeds;
}

export const NO_SITE_RULES: SiteRules = { redirects: NO_REDIRECTS, headers: NO_HEADER_RULES, needs: NO_NEEDS };

interface Manifest {
  files: PackedManifest;
  rules: SiteRules;
  forms: DeclaredForm[];
  bytes: number;
}

/** What an expired deployment is served with: nothing, as it answers 410. */
const EXPIRED_MANIFEST: Manifest = { files: PackedManifest.from([]), rules: NO_SITE_RULES, forms: [], bytes: 0 };

/** Everything the router needs to answer for one project, cached per host. */
export interface SiteState {
  projectId: string;
  /** The project's workspace: the router asks SitePauses about it (the spend cap, issue 31). */
  workspaceId: string;
  slug: string;
  name: string;
  type: ProjectType;
  gateType: GateType;
  gateVersion: number;
  passwordHash: string | null;
  live: LiveDeployment | null;
  /**
   * Set on the state of a preview host (`<slug>--<version>.<SITES_DOMAIN>`, or a branch's
   * or pull request's alias): `live` is then that deployment, whatever its status, not the
   * project's live one.
   */
  preview?: true;
  /** Memos that live exactly as long as this state: request target → answer (router), cookie → expiry (Gates). */
  resolved?: Map<string, SiteAnswer>;
  grants?: Map<string, number>;
  /** Charges one more memoised answer under `key` to the state's cache entry (the router's conditional answers, kept beside `resolved`). */
  chargeAnswer?: (key: string) => void;
  /** Headers of every answer of the site (cache tags, HSTS), as a flat list. */
  headers?: string[];
}

const RECONNECT_MS = 1000;
/** How long an own notice is awaited back (they come within milliseconds), and how many at most. */
const OWN_ECHO_MS = 10_000;
const OWN_NOTICES_MAX = 1024;
/**
 * Cold slug hosts read per statement at most. A site row is a few hundred bytes; past a few
 * dozen per batch the fixed cost per statement is already small, and a larger batch
 * only makes its first site wait for its last one's manifest.
 */
const SLUG_BATCH = 32;
/** Never the current epoch: an entry cached while no listener ran, kept only as the outage fallback. */
const STALE = -1;

/**
 * Estimated heap bytes of the parts of a cached site (the budget counts these; see
 * docs/scaling.md for how they were measured). A state: the object, its row's strings,
 * its LiveDeployment and its header list. A memo entry: the answer, its FileSend and the
 * header arrays the sender builds per representation. A grant: a number under a cookie.
 */
const STATE_BYTES = 1200;
const MISSING_BYTES = 120;
const ANSWER_BYTES = 1500;
const GRANT_BYTES = 48;
/** Compiled `_redirects` / `_headers` rules per byte of their file (regular expressions, arrays, strings). */
const RULE_BYTES_PER_FILE_BYTE = 10;

/**
 * One cached host. `epoch` says whether it may answer: only an entry of the current
 * listener epoch is fresh; older ones (the listener was lost since) are the last known
 * answer, used only while the database cannot be reached.
 */
interface Entry {
  state: SiteState | null;
  epoch: number;
  bytes: number;
}

/**
 * Host → site state, in memory, within one byte budget (SITE_CACHE_MB): states with
 * their deployments' packed manifests and compiled rules, and "no site here" entries,
 * in one LRU sized by estimated bytes; the memos that grow on a state later (router
 * answers, gate grants) are counted as they grow. Compressed-copy knowledge
 * (BlobVariants) has its own share of the same budget.
 *
 * Every instance LISTENs for the change notices that deploys, promotions, gate changes
 * and deletions send inside their transactions, and drops what they name. While the
 * listener is down nothing is answered from the cache, so a lost notice can never leave
 * a stale site behind.
 *
 * The one exception: while the database cannot be reached at all, a host is answered
 * from the last state the database gave for it (kept until a notice names its project
 * or the budget evicts it), so sites already served stay up through a database outage
 * or restart.
 */
@Injectable()
export class SiteCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SiteCache.name);
  /**
   * Bounded by bytes: every Host header a client invents (random slugs, random dotted
   * names) leaves a cached miss, and a manifest may list one file or 20,000.
   */
  private readonly entries: LRUCache<string, Entry>;
  private readonly budget: number;
  /**
   * Manifests of the deployments some cached state holds, by deployment id: a second host
   * of the same deployment (custom domain, preview address) or a state reloaded after a
   * gate change reuses it. Weak: the states hold (and the budget counts) them.
   */
  private readonly manifests = new Map<string, WeakRef<Manifest>>();
  private readonly manifestCollected = new FinalizationRegistry<string>((id) => {
    if (this.manifests.get(id)?.deref() === undefined) this.manifests.delete(id);
  });
  /** Manifest reads in flight: hosts of one deployment loading together share one. */
  private readonly manifestLoads = new Map<string, Promise<Manifest>>();
  /** Lookups in flight, by cache key (see `lookup`). */
  private readonly loading = new Map<string, Promise<SiteState | null>>();
  private readonly loads: LoadQueue;
  /** Cold `<slug>.<SITES_DOMAIN>` hosts, read several to a statement (see LoadBatches). */
  private readonly slugLoads: LoadBatches<string, SiteState | null>;
  private listener?: Client;
  private listening = false;
  private closed = false;
  /** Bumped by every invalidation; a load that raced one is not cached. */
  private generation = 0;
  /** Bumped when the listener is lost: every entry cached before becomes the last known only. */
  private epoch = 0;
  private reconnectTimer?: NodeJS.Timeout;
  /**
   * This instance's own notices on their way back from PostgreSQL (by noticeKey). Once its
   * commit is known to have dropped the project, the echo would only drop again the state
   * loaded since, which is current (and is the last known to serve in an outage).
   */
  private readonly ownNotices = new Map<string, { sentAt: number; committed: boolean }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly storage: StorageProvider,
    private readonly projects: ProjectsRepository,
    private readonly deployments: DeploymentsRepository,
    private readonly aliases: PreviewsRepository,
    private readonly metrics: MetricsService,
    variants: BlobVariants,
  ) {
    this.budget = config.siteCacheBytes;
    this.entries = new LRUCache<string, Entry>({
      maxSize: Math.max(1, Math.floor(this.budget * (1 - VARIANTS_BUDGET_SHARE))),
      sizeCalculation: (entry) => entry.bytes,
    });
    // All but two of the pool's connections: cold loads never take every one from the API.
    this.loads = new LoadQueue(Math.max(1, config.DATABASE_POOL_SIZE - 2));
    this.slugLoads = new LoadBatches<string, SiteState | null>(this.loads, (slugs) => this.readSlugs(slugs), null, SLUG_BATCH);
    metrics.watchSiteCache(() => ({ budget: this.budget, parts: { ...this.use(), variants: variants.knownBytes }, loads: this.loads }));
  }

  /** Emits 'invalidated' (projectId | undefined) after each drop; tests wait on it. */
  readonly events = new EventEmitter();

  async onModuleInit(): Promise<void> {
    // Changes committed by this instance drop its cache at once; other instances hear the NOTIFY.
    this.dataSource.subscribers.push(
      siteChangesOnCommit({
        sending: (notices) => this.expectOwn(notices),
        committed: (projectIds, notices) => {
          projectIds.forEach((projectId) => this.invalidate(projectId));
          // A notice already back (it may overtake the commit's answer) is gone from the map.
          for (const key of notices) {
            const own = this.ownNotices.get(key);
            if (own) own.committed = true;
          }
        },
        failed: (projectIds, notices) => {
          notices.forEach((key) => this.ownNotices.delete(key));
          projectIds.forEach((projectId) => this.invalidate(projectId));
        },
      }),
    );
    await this.listen();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'statichost-site-cache' });
    client.on('notification', (msg) => {
      if (msg.channel === SITE_CHANGED_CHANNEL && !this.isOwnEcho(msg.processId, msg.payload)) this.invalidate(msg.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(`LISTEN ${SITE_CHANGED_CHANNEL}`);
    this.listener = client;
    this.listening = true;
    // A load that began while nothing listened may have read a site before a change whose
    // notice was lost: finishing now, it would be kept as fresh (remember() reads
    // `listening` when it ends). It still answers its own requests, but is not cached.
    this.generation++;
    this.loading.clear();
  }

  private lost(client: Client, err?: Error): void {
    if (this.listener !== client || this.closed) return;
    this.listening = false;
    this.listener = undefined;
    // Notices sent while nothing listens never come back.
    this.ownNotices.clear();
    // Not invalidate(): the entries stay, as the last known states for an outage.
    this.epoch++;
    this.drop();
    this.logger.warn(`site change listener lost${err ? `: ${err.message}` : ''}; serving uncached until it is back`);
    const retry = () => {
      if (this.closed) return;
      this.listen().catch(() => (this.reconnectTimer = setTimeout(retry, RECONNECT_MS)));
    };
    this.reconnectTimer = setTimeout(retry, RECONNECT_MS);
  }

  private expectOwn(notices: string[]): void {
    if (notices.length === 0) return;
    const now = Date.now();
    // Those of a commit whose outcome never came, or sent while the listener was being replaced, never come back.
    if (this.ownNotices.size >= OWN_NOTICES_MAX) {
      for (const [key, own] of this.ownNotices) if (now - own.sentAt > OWN_ECHO_MS) this.ownNotices.delete(key);
      if (this.ownNotices.size >= OWN_NOTICES_MAX) this.ownNotices.clear();
    }
    for (const key of notices) this.ownNotices.set(key, { sentAt: now, committed: false });
  }

  /**
   * Whether a notice is one this instance sent and whose commit already dropped the
   * project here. One back before that (or whose commit's outcome never came) is obeyed.
   * Only for a short while: the pid names a backend of this instance's pool only as long
   * as that connection lives, and another instance's connection may get it next.
   */
  private isOwnEcho(processId: number, payload: string | undefined): boolean {
    if (!payload) return false;
    const key = noticeKey(processId, payload);
    const own = this.ownNotices.get(key);
    if (own === undefined) return false;
    this.ownNotices.delete(key);
    return own.committed && Date.now() - own.sentAt <= OWN_ECHO_MS;
  }

  /** Drops one project's cached state (all of it when no id is given), last known ones included. */
  invalidate(projectId?: string): void {
    if (!projectId) {
      this.entries.clear();
    } else {
      for (const [key, entry] of this.entries.entries()) {
        // Unknown hosts are cached as null; a new project may now answer for one of them.
        if (entry.state === null || entry.state.projectId === projectId) this.entries.delete(key);
      }
    }
    this.drop(projectId);
  }

  private drop(projectId?: string): void {
    this.generation++;
    // Loads already under way may predate the change: requests from now on start their own.
    this.loading.clear();
    this.events.emit('invalidated', projectId);
  }

  /** Estimated bytes held, by part (the metrics; walks the entries, so only at scrape time). */
  use(): { sites: number; missing: number } {
    let sites = 0;
    let missing = 0;
    for (const entry of this.entries.values()) {
      if (entry.state) sites += entry.bytes;
      else missing += entry.bytes;
    }
    return { sites, missing };
  }

  /**
   * Keys of the sites cached fresh, most recently used first, at most `limit`: the
   * warm-start list (SiteWarmStart). Slug and custom-domain hosts only (warmHostOf); a
   * preview alias's state is its owner's look, not the site's traffic. Reads the LRU's
   * order without changing it.
   */
  recentHosts(limit: number): string[] {
    const keys: string[] = [];
    if (limit <= 0) return keys;
    for (const [key, entry] of this.entries.entries()) {
      if (entry.state === null || entry.state.preview || entry.epoch !== this.epoch || warmHostOf(key) === null) continue;
      keys.push(key);
      if (keys.length === limit) break;
    }
    return keys;
  }

  /**
   * Whether bySlug / byDomain / byPreview would answer `name` from memory, without a query:
   * the TLS ask spends its lookup budget only on names that would reach the database.
   */
  isCached(kind: 's' | 'd' | 'p', name: string): boolean {
    return this.entries.peek(`${kind}:${name}`)?.epoch === this.epoch;
  }

  /**
   * The site of `<slug>.<SITES_DOMAIN>`, or null when there is none. A label that is no
   * project's slug may be a branch's or pull request's alias (docs/previews.md: a slug
   * first, always): its deployment is served as a preview (`preview: true`).
   */
  bySlug(slug: string): SiteState | null | Promise<SiteState | null> {
    const key = `s:${slug}`;
    // A hit (nearly every request) allocates no loader closure.
    const cached = this.entries.get(key);
    if (cached !== undefined && cached.epoch === this.epoch) return cached.state;
    return this.lookup(key, (known) => this.slugLoads.get(slug, known));
  }

  /**
   * One batch of cold slug hosts: their rows in one statement, the manifests none holds in
   * a second. A label that is no slug may be an alias.
   */
  private async readSlugs(labels: string[]): Promise<Map<string, Promise<SiteState | null>>> {
    const rows = await this.projects.sitesBySlugs(labels);
    this.readManifests(rows);
    // Per site: one whose manifest cannot be read (a rule file lost from storage) fails alone, not its batch.
    const states = new Map<string, Promise<SiteState | null>>();
    for (const row of rows) {
      states.set(row.slug, this.stateOf(row));
    }
    // Every alias holds "--": other labels cost no second query.
    for (const label of labels) {
      if (!states.has(label) && label.includes(PREVIEW_SEPARATOR)) states.set(label, this.alias(label));
    }
    // The batch holds its load slot until its sites are read.
    await Promise.allSettled(states.values());
    return states;
  }

  private async alias(label: string): Promise<SiteState | null> {
    const row = await this.aliases.siteByLabel(label);
    if (!row) return null;
    return this.previewState(row);
  }

  /**
   * The site of a verified custom domain (src/domains), or null: pending and failed
   * domains are not served. Cached and invalidated exactly like bySlug; a null is
   * cached too, so hosts that are no custom domain cost one query per invalidation.
   */
  byDomain(host: string): SiteState | null | Promise<SiteState | null> {
    return this.lookup(`d:${host}`, (known) => this.loads.run(() => this.site(this.projects.siteByVerifiedDomain(host)), known));
  }

  /**
   * The site of a preview host: the project's deployment the label names
   * (src/shared/preview-label.ts), served as if it were live, or null when there is
   * no such deployment or the label is not that deployment's own form. A project whose
   * slug is the whole label (one taken before slugs lost "--") keeps its site there.
   * Cached and invalidated with the project like bySlug: a gate change or a delete drops it.
   */
  byPreview(label: string, target: PreviewTarget): SiteState | null | Promise<SiteState | null> {
    return this.lookup(`p:${label}`, (known) => this.loads.run(() => this.queryPreview(label, target), known));
  }

  /** `read` goes through the load bound (`loads`, or the batches that run in it); `known`: the host was served before. */
  private lookup(key: string, read: (known: boolean) => Promise<SiteState | null>): SiteState | null | Promise<SiteState | null> {
    const cached = this.entries.get(key);
    if (cached !== undefined && cached.epoch === this.epoch) return cached.state;
    // Concurrent misses of one host share one load: on a cold cache under load (and
    // custom-domain lookups put every dotted API host here) each request would send its own.
    const loading = this.loading.get(key);
    if (loading) return loading;
    // A host served before (its entry is only stale) goes ahead of hosts never seen.
    const load = this.load(key, read, cached !== undefined).finally(() => {
      if (this.loading.get(key) === load) this.loading.delete(key);
    });
    this.loading.set(key, load);
    return load;
  }

  private async load(key: string, read: (known: boolean) => Promise<SiteState | null>, known: boolean): Promise<SiteState | null> {
    const generation = this.generation;
    let state: SiteState | null;
    try {
      state = await read(known);
    } catch (err) {
      const last = isDatabaseUnavailable(err) ? this.entries.get(key) : undefined;
      if (last === undefined) throw err;
      return last.state;
    }
    if (generation === this.generation) this.remember(key, state);
    return state;
  }

  /**
   * Caches a loaded state, fresh while the listener runs (else as the last known only),
   * with its memos counted as they grow.
   */
  private remember(key: string, state: SiteState | null): void {
    const entry: Entry = { state, epoch: this.listening ? this.epoch : STALE, bytes: stringBytes(key) };
    if (state === null) {
      entry.bytes += MISSING_BYTES;
    } else {
      entry.bytes += STATE_BYTES + (state.live?.bytes ?? 0);
      const grow = (bytes: number) => this.grow(key, state, bytes);
      state.resolved = new ChargedMap(ANSWER_BYTES, grow);
      // Only a gate reads grants; a state's gate is fixed (a gate change brings a new state).
      if (state.gateType !== 'none') state.grants = new ChargedMap(GRANT_BYTES, grow);
      state.chargeAnswer = (answerKey) => grow(ANSWER_BYTES + stringBytes(answerKey));
    }
    this.entries.set(key, entry);
  }

  /** A memo of a cached state grew: its entry is re-sized (a new entry object, as the LRU re-reads sizes only on a new value). */
  private grow(key: string, state: SiteState, bytes: number): void {
    const entry = this.entries.peek(key);
    if (entry === undefined || entry.state !== state) return;
    this.entries.set(key, { state, epoch: entry.epoch, bytes: entry.bytes + bytes });
  }

  private async site(read: Promise<SiteRow | undefined>): Promise<SiteState | null> {
    const row = await read;
    return row ? this.stateOf(row) : null;
  }

  /** A deployment served at a preview host (its own address, or a branch's or pull request's alias), whatever its status. */
  private async previewState(row: Omit<SiteRow, 'live_deployment_id'> & { deployment_id: string }): Promise<SiteState> {
    return { ...siteState(row, await this.liveDeployment(row.deployment_id, row)), preview: true };
  }

  private async stateOf(row: SiteRow): Promise<SiteState> {
    return siteState(row, row.live_deployment_id ? await this.liveDeployment(row.live_deployment_id, row) : null);
  }

  private async liveDeployment(id: string, row: Pick<SiteRow, 'status' | 'expires_at' | 'forms'>): Promise<LiveDeployment> {
    const expired = row.status === 'expired';
    return {
      id,
      expiresAt: row.expires_at ? row.expires_at.getTime() : null,
      expired,
      // It answers 410 whatever it holds, and the collector may have taken its files already.
      ...(expired ? EXPIRED_MANIFEST : await this.manifest(id, row.forms ?? [])),
    };
  }

  private async queryPreview(label: string, target: PreviewTarget): Promise<SiteState | null> {
    const legacy = await this.site(this.projects.siteBySlug(label));
    if (legacy) return legacy;
    const row = await this.deployments.previewSite(target);
    // Only the label the API hands out answers: no second address for one deployment.
    if (!row || previewLabel(row.slug, row.version, row.deployment_id) !== label) return null;
    return this.previewState(row);
  }

  /** A deployment's files and compiled rules, read once while any state holds them (deployments never change once committed). */
  private manifest(deploymentId: string, forms: DeclaredForm[]): Promise<Manifest> {
    const held = this.manifests.get(deploymentId)?.deref();
    if (held) return Promise.resolve(held);
    return this.manifestLoads.get(deploymentId) ?? this.loadManifest(deploymentId, this.readManifest(deploymentId, forms));
  }

  /**
   * Starts one read of the manifests of `rows`' live deployments that nobody holds or reads
   * yet; `manifest()` then finds them loading.
   */
  private readManifests(rows: SiteRow[]): void {
    const wanted = new Map<string, DeclaredForm[]>();
    for (const row of rows) {
      const id = row.live_deployment_id;
      if (id && row.status !== 'expired' && !wanted.has(id) && !this.manifests.get(id)?.deref() && !this.manifestLoads.has(id)) wanted.set(id, row.forms ?? []);
    }
    if (wanted.size === 0) return;
    // One deployment: the statement of single reads (prepared, no grouping).
    if (wanted.size === 1) {
      const [[id, forms]] = wanted;
      void this.manifest(id, forms);
      return;
    }
    const read = this.deployments.manifestRowsOf([...wanted.keys()]).then((rows) => {
      const byDeployment = new Map<string, DeploymentManifestRow[]>();
      for (const row of rows) {
        const list = byDeployment.get(row.deployment_id);
        if (list) list.push(row);
        else byDeployment.set(row.deployment_id, [row]);
      }
      return byDeployment;
    });
    for (const [id, forms] of wanted) {
      void this.loadManifest(
        id,
        read.then((byDeployment) => this.buildManifest(id, forms, byDeployment.get(id) ?? [])),
      );
    }
  }

  /** Registers a manifest read in flight, so hosts of one deployment share it; forgotten when it ends. */
  private loadManifest(deploymentId: string, loading: Promise<Manifest>): Promise<Manifest> {
    const shared = loading.finally(() => {
      if (this.manifestLoads.get(deploymentId) === shared) this.manifestLoads.delete(deploymentId);
    });
    this.manifestLoads.set(deploymentId, shared);
    // Its reader may be another batch's site: an unread failure is not an unhandled rejection.
    shared.catch(() => undefined);
    return shared;
  }

  /** `forms` came with the site's row (the deployment's, which never change once committed). */
  private async readManifest(deploymentId: string, forms: DeclaredForm[]): Promise<Manifest> {
    return this.buildManifest(deploymentId, forms, await this.deployments.manifestRows(deploymentId));
  }

  private async buildManifest(deploymentId: string, forms: DeclaredForm[], rows: ManifestRow[]): Promise<Manifest> {
    this.metrics.siteManifestLoads.inc();
    const entries = [];
    const ruleFiles = new Map<string, SiteFile>();
    for (const r of rows) {
      const entry = { path: r.path, sha256: r.sha256, size: Number(r.size), contentType: r.content_type };
      if (RULE_FILES.has(r.path)) ruleFiles.set(r.path, { ...entry, etag: `"${r.sha256}"` });
      else entries.push(entry);
    }
    const files = PackedManifest.from(entries);
    const [redirects, headers] = await Promise.all([
      this.compileRules(deploymentId, ruleFiles.get('_redirects'), parseRedirects, NO_REDIRECTS),
      this.compileRules(deploymentId, ruleFiles.get('_headers'), (bytes) => parseHeaders(bytes, { served: true }), NO_HEADER_RULES),
    ]);
    const ruleBytes = [
      redirects === NO_REDIRECTS ? undefined : ruleFiles.get('_redirects'),
      headers === NO_HEADER_RULES ? undefined : ruleFiles.get('_headers'),
    ]
      .map((f) => (f ? f.size * RULE_BYTES_PER_FILE_BYTE : 0))
      .reduce((a, b) => a + b, 0);
    const manifest: Manifest = {
      files,
      rules: redirects === NO_REDIRECTS && headers === NO_HEADER_RULES ? NO_SITE_RULES : { redirects, headers, needs: siteRuleNeeds(redirects, headers) },
      forms,
      bytes: files.bytes + ruleBytes + (forms.length === 0 ? 0 : JSON.stringify(forms).length * 2),
    };
    this.manifests.set(deploymentId, new WeakRef(manifest));
    this.manifestCollected.register(manifest, deploymentId);
    return manifest;
  }

  /**
   * Deploys refuse bad rule files, so a failure here is a deployment made before
   * rules were checked: it is served without rules (the file stays hidden) and
   * logged, rather than failing every request of the site.
   */
  private async compileRules<T>(deploymentId: string, file: SiteFile | undefined, parse: (bytes: Uint8Array) => ParseResult<T>, none: T): Promise<T> {
    if (!file) return none;
    if (file.size > MAX_RULE_FILE_BYTES) {
      this.logger.warn(`deployment ${deploymentId}: ${file.path} is ${file.size} bytes, over the limit; served without it`);
      return none;
    }
    const object = await this.storage.get(blobKey(file.sha256));
    if (!object) throw new Error(`object of ${file.path} (${file.sha256}) is missing from storage`);
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    const parsed = parse(Buffer.concat(chunks));
    if (parsed.ok) return parsed.rules;
    this.logger.warn(
      `deployment ${deploymentId}: ${file.path} has ${parsed.errors.length} problem(s) (first: line ${parsed.errors[0].line}: ${parsed.errors[0].message}); served without it`,
    );
    return none;
  }
}

function siteState(row: Omit<SiteRow, 'live_deployment_id' | 'status' | 'expires_at'>, live: LiveDeployment | null): SiteState {
  return {
    projectId: row.id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    name: row.name,
    type: row.type,
    gateType: row.gate_type,
    gateVersion: row.gate_version,
    passwordHash: row.password_hash,
    live,
  };
}

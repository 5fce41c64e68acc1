import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { formatBytes } from '../../packages/shared/format-bytes';
import { AuditLogService } from '../audit/audit-log.service';
import { blobKey } from '../blobs/blob-keys';
import { BlobContent, BlobStore } from '../blobs/blob-store.service';
import { BlobVariants } from '../blobs/blob-variants.service';
import { badRequest, payloadTooLarge } from '../common/errors';
import { newId } from '../common/ids';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus } from '../events/event-bus';
import { deployOutcomeOf } from '../metrics/deploy-outcome';
import { MetricsService } from '../metrics/metrics.service';
import type { Project, ProjectType } from '../projects/project.entity';
import { projectsError } from '../projects/projects.errors';
import { ProjectsRepository } from '../projects/projects.repository';
import { ProjectsService, projectTarget } from '../projects/projects.service';
import { defaultTtlWithin } from '../quotas/quota';
import { QuotaService } from '../quotas/quota.service';
import { isCompressible } from '../shared/encoding';
import type { DeclaredForm } from '../shared/forms/declared-form';
import { extractForms, mergeForms, SCAN_LIMITS, type ScannedForm } from '../shared/forms/extract';
import { type Principal, workspaceOf } from '../shared/principal';
import type { HeaderRules } from '../shared/site-rules/headers';
import { type Slug } from '../shared/slug';
import { expiryOf, type Ttl } from '../shared/ttl';
import { storageError } from '../storage/storage.errors';
import { StorageProvider } from '../storage/storage.provider';
import { contentTypeFor, decodeContent, InvalidContentError, sha256Hex } from './content';
import type { Deployment } from './deployment.entity';
import { deploymentTarget, previewUrl } from './deployment.view';
import { deploymentsError } from './deployments.errors';
import { DeploymentsRepository } from './deployments.repository';
import { DeploymentsService } from './deployments.service';
import { DeployFileDto } from './dto/deploy.dto';
import { assertFileObject, describeFileEntry, InvalidFileEntryError } from './file-entry';
import { InvalidPathError, normaliseDeployPaths } from './file-path';
import { lazyTarget } from './lazy-target';
import { checkRuleFiles, gatedRuleFileError, InvalidRuleFileError, oversizedRuleFile, RuleFileName, ruleFilesOf, type RuleWarning } from './site-rules-check';

export interface PreparedFile {
  path: string;
  sha256: string;
  size: number;
  contentType: string;
}

export interface PreparedDeploy {
  files: PreparedFile[];
  /** Inline files' bytes, to store. */
  blobs: BlobContent[];
  /** Digest-only files' blobs, one per hash: already uploaded, to claim (never to store). */
  referenced: { sha256: string; size: number }[];
  sizeBytes: number;
}

/** A project by id, or by a slug parsed where the request entered (a lazy deploy). */
export type DeployTarget = { projectId: string } | { slug: Slug };

/** A deploy's body, its ttl parsed by the controller. */
export interface DeployRequest {
  type?: ProjectType;
  files: DeployFileDto[];
  ttl?: Ttl;
  /** Instead of the project's default_ttl when `ttl` is absent, cut to the plan's longest rather than refused (builds' previews: PREVIEW_TTL). */
  defaultTtl?: Ttl;
  /** false: the deployment is reachable at its preview address only; promote makes it live. Default true. */
  publish?: boolean;
}

export type DeployResult = { deployment: Deployment; project: Project };

/** What the deploy keeps of its rule files: `_headers` (checked against the gate once the project is known) and the warnings to store. */
interface CheckedSiteRules {
  headers?: HeaderRules;
  warnings: RuleWarning[];
}

class MissingBlobsError extends Error {}

/** Storage reads in flight while scanning a deploy's HTML for forms. */
const FORM_SCAN_CONCURRENCY = 4;

/** Attempts when the garbage collector takes a blob between claim and commit (rare). */
const COMMIT_ATTEMPTS = 3;

/**
 * The deploy pipeline: validate and hash every file, store the missing objects,
 * then in one transaction allocate the version, write the manifest and switch the
 * live pointer. Nothing is visible until that transaction commits.
 */
@Injectable()
export class DeployService {
  private readonly logger = new Logger(DeployService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly projects: ProjectsService,
    private readonly projectRows: ProjectsRepository,
    private readonly deployments: DeploymentsRepository,
    private readonly pointer: DeploymentsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly quotas: QuotaService,
    private readonly metrics: MetricsService,
    private readonly variants: BlobVariants,
    private readonly storage: StorageProvider,
    private readonly events: EventBus,
    private readonly audit: AuditLogService,
  ) {}

  /** Validates and hashes the request's files; throws 400/413 before anything is stored. */
  prepare(files: DeployFileDto[], maxFileBytes = this.config.MAX_FILE_BYTES): PreparedDeploy {
    if (files.length > this.config.MAX_FILES_PER_DEPLOYMENT) {
      throw badRequest(`files: ${files.length} files exceed the limit of ${this.config.MAX_FILES_PER_DEPLOYMENT} per deployment`);
    }
    try {
      files.forEach((file, i) => assertFileObject(file, i));
    } catch (err) {
      if (err instanceof InvalidFileEntryError) throw deploymentsError('invalid_file', err.message);
      throw err;
    }
    let paths: string[];
    try {
      paths = normaliseDeployPaths(files.map((f) => f.path));
    } catch (err) {
      if (err instanceof InvalidPathError) throw deploymentsError('invalid_path', err.reason);
      throw err;
    }
    const prepared: PreparedFile[] = [];
    const blobs = new Map<string, BlobContent>();
    const referenced = new Map<string, { sha256: string; size: number; index: number }>();
    let sizeBytes = 0;
    const checkSize = (i: number, size: number) => {
      if (size > maxFileBytes) {
        throw payloadTooLarge(`files[${i}] "${paths[i]}" is ${formatBytes(size)}; the largest file allowed is ${formatBytes(maxFileBytes)}`, {
          path: paths[i],
          size,
          limit: maxFileBytes,
        });
      }
    };
    files.forEach((file, i) => {
      let entry: ReturnType<typeof describeFileEntry>;
      try {
        entry = describeFileEntry(file, i);
      } catch (err) {
        if (err instanceof InvalidFileEntryError) throw deploymentsError('invalid_file', err.message);
        throw err;
      }
      if (entry.kind === 'digest') {
        checkSize(i, entry.size);
        const earlier = referenced.get(entry.sha256);
        if (earlier && earlier.size !== entry.size) {
          throw deploymentsError('invalid_file', `files[${i}].size is ${entry.size} but files[${earlier.index}] gives ${earlier.size} for the same sha256`);
        }
        if (!earlier) referenced.set(entry.sha256, { sha256: entry.sha256, size: entry.size, index: i });
        prepared.push({ path: paths[i], sha256: entry.sha256, size: entry.size, contentType: contentTypeFor(paths[i]) });
        sizeBytes += entry.size;
        return;
      }
      let bytes: Buffer;
      try {
        bytes = decodeContent(file.content, file.encoding, i);
      } catch (err) {
        if (err instanceof InvalidContentError) throw deploymentsError('invalid_content', err.message);
        throw err;
      }
      checkSize(i, bytes.length);
      const sha256 = sha256Hex(bytes);
      if (!blobs.has(sha256)) blobs.set(sha256, { sha256, size: bytes.length, bytes });
      prepared.push({ path: paths[i], sha256, size: bytes.length, contentType: contentTypeFor(paths[i]) });
      sizeBytes += bytes.length;
    });
    // A digest entry's size must agree with inline bytes of the same hash in this request.
    for (const ref of referenced.values()) {
      const inline = blobs.get(ref.sha256);
      if (inline && inline.size !== ref.size) {
        throw deploymentsError('blob_size_mismatch', `files[${ref.index}].size is ${ref.size}, but the file's sha256 belongs to ${inline.size} bytes`);
      }
    }
    const uploadedRefs = [...referenced.values()].filter((r) => !blobs.has(r.sha256)).map(({ sha256, size }) => ({ sha256, size }));
    return { files: prepared, blobs: [...blobs.values()], referenced: uploadedRefs, sizeBytes };
  }

  /**
   * `beforeCommit` runs last inside the deploy's transaction: the controller records the
   * Idempotency-Key's response there, so the key is completed exactly when the deploy commits.
   */
  async deploy(
    principal: Principal,
    target: DeployTarget,
    request: DeployRequest,
    beforeCommit?: (m: EntityManager, result: DeployResult) => Promise<void>,
  ): Promise<DeployResult> {
    const start = performance.now();
    try {
      const done = await this.deployOnce(principal, target, request, beforeCommit);
      this.metrics.observeDeploy('ok', (performance.now() - start) / 1000, Number(done.deployment.sizeBytes));
      return done;
    } catch (err) {
      this.metrics.observeDeploy(deployOutcomeOf(err), (performance.now() - start) / 1000);
      throw err;
    }
  }

  private async deployOnce(
    principal: Principal,
    target: DeployTarget,
    request: DeployRequest,
    beforeCommit?: (m: EntityManager, result: DeployResult) => Promise<void>,
  ): Promise<DeployResult> {
    workspaceOf(principal);
    // The plan in force now: its largest file and longest TTL apply before anything is stored.
    const plan = await this.quotas.planOf(workspaceOf(principal));
    if (request.ttl !== undefined) this.quotas.assertTtlAllowed(plan, request.ttl, 'ttl');
    const prepared = this.prepare(request.files, plan.limits.maxFileBytes);
    await this.claimReferenced(workspaceOf(principal), prepared);
    const rules = await this.checkSiteRules(prepared);
    const forms = await this.scanForms(prepared);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.blobs.ensureStored(prepared.blobs);
      } catch (err) {
        this.logger.error(`storing deployment files failed: ${(err as Error).message}`, (err as Error).stack);
        throw storageError('storage_unavailable', 'Object storage failed while storing the files; nothing was deployed. Retry the request.');
      }
      try {
        const done = await this.dataSource.transaction(async (m) => {
          const result = await this.commit(m, principal, target, request, prepared, rules, forms);
          await beforeCommit?.(m, result);
          // The audit entry last, as it is written: at the commit (AuditLogService), after
          // every row above (a build's, a form's) that another change may hold.
          const { deployment, project } = result;
          await this.audit.record(m, {
            workspaceId: project.workspaceId,
            action: 'deployment.created',
            target: deploymentTarget(project, deployment),
            changes: deployment.status === 'live' ? ['live'] : [],
          });
          return result;
        });
        // Brotli at its best quality takes seconds a megabyte: computed after the commit, never waited for.
        this.variants.schedule(prepared.files.filter((f) => isCompressible(f.contentType, f.size)).map((f) => f.sha256));
        return done;
      } catch (err) {
        if (!(err instanceof MissingBlobsError) || attempt >= COMMIT_ATTEMPTS) {
          if (err instanceof MissingBlobsError) throw deploymentsError('storage_busy', 'Storage is busy; retry the deploy');
          throw err;
        }
      }
    }
  }

  /**
   * Digest-only files: claims their blobs for the deploy (so the collector keeps
   * them for the grace period, which bounds a deploy's duration) and refuses hashes
   * the workspace has not uploaded or deployed, listing them so a client can
   * upload exactly those (PUT /v1/blobs/:sha256) and repeat the deploy.
   */
  private async claimReferenced(workspaceId: string, prepared: PreparedDeploy): Promise<void> {
    if (prepared.referenced.length === 0) return;
    const owned = await this.blobs.claimOwned(
      workspaceId,
      prepared.referenced.map((r) => r.sha256),
    );
    const missing = prepared.referenced.filter((r) => !owned.has(r.sha256)).map((r) => r.sha256);
    if (missing.length > 0) {
      const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? `, and ${missing.length - 5} more` : '');
      throw deploymentsError(
        'missing_blobs',
        `${missing.length} file${missing.length === 1 ? '' : 's'} name${missing.length === 1 ? 's a blob' : ' blobs'} this workspace has not uploaded: ${shown}. ` +
          'Upload each with PUT /v1/blobs/:sha256, then repeat the deploy; nothing was deployed.',
        { missing },
      );
    }
    for (const ref of prepared.referenced) {
      const stored = owned.get(ref.sha256)!;
      if (stored !== ref.size) {
        const i = prepared.files.findIndex((f) => f.sha256 === ref.sha256);
        throw deploymentsError(
          'blob_size_mismatch',
          `files[${i}] "${prepared.files[i].path}" gives size ${ref.size}, but blob ${ref.sha256} is ${stored} bytes`,
          {
            sha256: ref.sha256,
            size: stored,
          },
        );
      }
    }
  }

  private async commit(
    m: EntityManager,
    principal: Principal,
    target: DeployTarget,
    request: DeployRequest,
    prepared: PreparedDeploy,
    rules: CheckedSiteRules,
    forms: DeclaredForm[],
  ): Promise<{ deployment: Deployment; project: Project }> {
    const headerRules = rules.headers;
    // Workspace first (it queues the workspace's quota checks), then the project row: one lock order for every writer.
    const plan = await this.quotas.lock(m, workspaceOf(principal));
    const project =
      'projectId' in target
        ? await this.projects.findVisible(principal, target.projectId, m)
        : await this.resolveLazyProject(m, principal, target.slug, request.type);
    if (request.type !== undefined && request.type !== project.type) {
      throw badRequest(`type: project "${project.slug}" is ${project.type}; a deployment cannot change it to ${request.type}`);
    }
    if (request.ttl !== undefined) this.quotas.assertTtlAllowed(plan, request.ttl, 'ttl');
    // Known only now that the project is: the router drops the same headers should the gate be switched on later.
    if (headerRules && project.gateType !== 'none') assertGatedHeaders(headerRules);
    const ttl = request.ttl ?? defaultTtlWithin(request.defaultTtl ?? project.defaultTtl, plan.limits);
    const now = this.clock.now();
    // 402 before the project row is touched when this month's deployments or the storage would exceed the plan.
    await this.quotas.chargeDeployment(m, plan, prepared.files);

    // The row lock serialises deploys of one project: versions are dense and unique.
    const bumped = await this.projectRows.nextVersion(m, project.id);
    if (!bumped) throw deploymentsError('project_deleted', `project ${project.id} was deleted during the deploy`);

    const publish = request.publish !== false;
    const missing = await this.blobs.lockStored(
      m,
      prepared.blobs.map((b) => b.sha256),
    );
    if (missing.length > 0) throw new MissingBlobsError();

    const deployment = await this.deployments.insert(m, {
      id: newId('dep'),
      projectId: project.id,
      workspaceId: project.workspaceId,
      version: bumped.last_version,
      // An unpublished deployment is an archived one from birth: not live, promotable,
      // and counted (storage, deploys this month) exactly like any other.
      status: publish ? 'live' : 'archived',
      sizeBytes: prepared.sizeBytes,
      fileCount: prepared.files.length,
      ttl: ttl.text,
      expiresAt: expiryOf(now, ttl),
      createdBy: principal.userId ?? principal.tokenId ?? 'unknown',
      createdAt: now,
      ruleWarnings: rules.warnings,
      // Issue 30: the forms its HTML declares (scanForms); the router takes form posts only for these.
      forms,
    });
    await this.deployments.insertFiles(m, deployment.id, prepared.files);
    // Every path that makes a deployment (API, lazy, digest, a build's publish) commits here; before the pointer moves, so a receiver hears of the new one before the one it replaces.
    await this.events.emit(m, {
      type: 'deployment.created',
      workspaceId: project.workspaceId,
      timestamp: now,
      data: {
        projectId: project.id,
        projectSlug: project.slug,
        deploymentId: deployment.id,
        version: deployment.version,
        url: previewUrl(this.config, project, deployment),
        live: publish,
        createdBy: deployment.createdBy,
      },
    });
    if (publish) await this.pointer.makeLive(m, { ...project, liveDeploymentId: bumped.live_deployment_id }, deployment, now);
    // Unpublished too: every instance may have cached "no such preview" for this version's address.
    else await this.projects.notifySiteChanged(m, project.id);
    return { deployment, project };
  }

  /**
   * `_redirects` and `_headers` at the root are parsed now, as the site will
   * compile them: a bad line is a 400 naming the file and line before anything is
   * stored. Digest-only entries are read back from storage (their blobs were just
   * claimed, so they are there), after a size check so junk is never fetched.
   */
  private async checkSiteRules(prepared: PreparedDeploy): Promise<CheckedSiteRules> {
    const found = ruleFilesOf(prepared.files);
    if (!found._redirects && !found._headers) return { warnings: [] };
    const read = async (name: RuleFileName): Promise<Buffer | undefined> => {
      const file = found[name];
      if (!file) return undefined;
      const oversized = oversizedRuleFile(name, file.size);
      if (oversized) throw deploymentsError(oversized.code, oversized.message, { errors: oversized.errors });
      return this.readBack(prepared, file.sha256, name);
    };
    try {
      const { headers, warnings } = checkRuleFiles(
        { redirects: await read('_redirects'), headers: await read('_headers') },
        prepared.files.map((f) => f.path),
        // The router's GeoIP lookups read the same file: without it a Country= rule can never match.
        { geoip: this.config.GEOIP_DATABASE !== undefined },
      );
      return { headers, warnings };
    } catch (err) {
      if (err instanceof InvalidRuleFileError) throw deploymentsError(err.code, err.message, { errors: err.errors });
      throw err;
    }
  }

  /** A file's bytes: inline from the request, else read back from storage (a digest-only file, its blob claimed). */
  private async readBack(prepared: PreparedDeploy, sha256: string, name: string, inlineBySha?: Map<string, Buffer>): Promise<Buffer> {
    const inline = inlineBySha ? inlineBySha.get(sha256) : prepared.blobs.find((b) => b.sha256 === sha256)?.bytes;
    if (inline) return inline;
    try {
      const object = await this.storage.get(blobKey(sha256));
      if (!object) throw new Error(`blob ${sha256} is missing`);
      const chunks: Buffer[] = [];
      for await (const chunk of object.stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    } catch (err) {
      this.logger.error(`reading ${name} (${sha256}) back failed: ${(err as Error).message}`);
      throw storageError('storage_unavailable', `Object storage failed while reading ${name}; nothing was deployed. Retry the request.`);
    }
  }

  /**
   * The forms the deploy's HTML files declare (issue 30, docs/forms.md). Each distinct
   * content is parsed once ever: html_form_scans remembers what a blob declares, so a
   * redeploy of a large site parses only the HTML that changed. Digest-only files are read
   * back from storage, a few at a time. Files over SCAN_LIMITS.maxHtmlBytes are not parsed.
   */
  private async scanForms(prepared: PreparedDeploy): Promise<DeclaredForm[]> {
    const html = prepared.files.filter((f) => f.contentType.startsWith('text/html'));
    if (html.length === 0) return [];
    const scannable = new Map<string, PreparedFile>();
    for (const f of html) {
      if (f.size > SCAN_LIMITS.maxHtmlBytes) this.logger.warn(`forms: ${f.path} is ${formatBytes(f.size)}, over the scan limit; its forms are not registered`);
      else if (!scannable.has(f.sha256)) scannable.set(f.sha256, f);
    }
    const known = await this.deployments.formScans([...scannable.keys()]);
    const fresh: { sha256: string; forms: ScannedForm[] }[] = [];
    const todo = [...scannable.values()].filter((f) => !known.has(f.sha256));
    // A lookup per HTML file: a search of the blob list each would be quadratic in a large site.
    const inlineBySha = new Map(prepared.blobs.map((b) => [b.sha256, b.bytes]));
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const file = todo[next++];
        const bytes = await this.readBack(prepared, file.sha256, file.path, inlineBySha);
        const forms = extractForms(bytes.toString('utf8'));
        fresh.push({ sha256: file.sha256, forms });
        known.set(file.sha256, forms);
      }
    };
    await Promise.all(Array.from({ length: Math.min(FORM_SCAN_CONCURRENCY, todo.length) }, worker));
    await this.deployments.saveFormScans(fresh, this.clock.now());
    const scans = html.filter((f) => known.has(f.sha256)).map((f) => ({ path: f.path, forms: known.get(f.sha256)! as ScannedForm[] }));
    return mergeForms(scans);
  }

  /** The project of a lazy deploy (lazyTarget), created here when it is a new one. */
  private async resolveLazyProject(m: EntityManager, principal: Principal, slug: Slug, type?: ProjectType): Promise<Project> {
    const target = lazyTarget(principal, slug, await this.projectRows.findBySlug(slug, m));
    if ('project' in target) return target.project;
    const created = await this.projects.insertLazyProject(m, workspaceOf(principal), target.create, type);
    if (created) {
      await this.audit.record(m, { workspaceId: created.workspaceId, action: 'project.created', target: projectTarget(created), changes: ['slug'] });
      return created;
    }
    // Another request created it first and has committed (the insert waited for it).
    const winner = await this.projectRows.findBySlug(slug, m);
    if (!winner) throw projectsError('slug_taken', `slug "${slug}" is already taken`);
    return lazyTarget(principal, slug, winner).project;
  }
}

/** `_headers` of a deploy to a gated project: CORS with credentials is refused (site-rules-check). */
function assertGatedHeaders(rules: HeaderRules): void {
  const err = gatedRuleFileError(rules);
  if (err) throw deploymentsError(err.code, err.message, { errors: err.errors });
}

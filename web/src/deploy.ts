import { DEPLOY_ROUNDS, INLINE_BYTES, type ManifestEntry, pickInline } from '../../packages/sdk/digest-protocol';
import { api, call, currentWorkspaceId, type Deployment } from './api';
import { ApiError } from './errors';
import { bytesToBase64, type HashedFile, mapLimit, type PickedFile } from './hashing';
import { accessToken, refreshSession } from './session';

export { type HashedFile, hashFiles, type PickedFile } from './hashing';

export interface DeployProgress {
  phase: 'hashing' | 'checking' | 'uploading' | 'deploying' | 'done';
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
}

/** What the CLI leaves out of a folder (packages/sdk/files.ts isIgnored): hidden files except .well-known, node_modules. */
export function isIgnored(name: string): boolean {
  return (name.startsWith('.') && name !== '.well-known') || name === 'node_modules';
}

/** Drops the chosen folder's own name (`site/index.html` → `index.html`) and what a deploy leaves out. */
export function sitePaths(files: { relativePath: string; file: File }[]): PickedFile[] {
  const segments = files.map((f) => f.relativePath.split('/').filter(Boolean));
  const roots = new Set(segments.map((s) => (s.length > 1 ? s[0] : '')));
  const strip = roots.size === 1 && !roots.has('');
  return files
    .map((f, i) => ({ parts: strip ? segments[i].slice(1) : segments[i], file: f.file }))
    .filter(({ parts }) => parts.length > 0 && !parts.some(isIgnored))
    .map(({ parts, file }) => ({ path: parts.join('/'), file }));
}

/** The files of a drop: folders walked with the File System entries API (every browser has it). */
export async function filesFromDrop(items: DataTransferItemList): Promise<{ relativePath: string; file: File }[]> {
  const out: { relativePath: string; file: File }[] = [];
  const entries: FileSystemEntry[] = [];
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry();
    if (entry) entries.push(entry);
    else {
      // No file-system entry (files a page or an extension put in the drop): the file itself, at the top.
      const file = item.getAsFile();
      if (file) out.push({ relativePath: file.name, file });
    }
  }
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ relativePath: `${prefix}${entry.name}`, file });
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries answers in batches (100 in Chromium) until an empty one.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
    }
  };
  for (const entry of entries) await walk(entry, '');
  return out;
}

/** PUT /v1/blobs/:sha256 with XMLHttpRequest: fetch cannot report upload progress. */
function putBlob(f: HashedFile, onBytes: (n: number) => void, retried = false): Promise<void> {
  return accessToken().then(
    (token) =>
      new Promise<void>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        let sent = 0;
        xhr.open('PUT', `/v1/blobs/${f.sha256}`);
        xhr.setRequestHeader('Content-Type', 'application/octet-stream');
        if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
        const ws = currentWorkspaceId();
        if (ws) xhr.setRequestHeader('X-Workspace-Id', ws);
        xhr.upload.onprogress = (e) => {
          onBytes(e.loaded - sent);
          sent = e.loaded;
        };
        xhr.onload = () => {
          if (xhr.status === 401 && !retried) {
            onBytes(-sent);
            void refreshSession(true).then(() => putBlob(f, onBytes, true).then(resolve, reject));
            return;
          }
          if (xhr.status >= 200 && xhr.status < 300) {
            // The service may answer before reading everything (it already had the blob).
            onBytes(f.size - sent);
            resolve();
            return;
          }
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(xhr.responseText) as Record<string, unknown>;
          } catch {
            // not JSON: the status says enough
          }
          reject(
            new ApiError(xhr.status, String(body.code ?? `http_${xhr.status}`), String(body.message ?? `Upload of ${f.path} failed (${xhr.status})`), body),
          );
        };
        xhr.onerror = () => reject(new ApiError(0, 'network_error', `Upload of ${f.path} failed: the connection dropped`));
        xhr.send(f.file);
      }),
  );
}

/**
 * The CLI's digest-first deploy (packages/sdk/deploy.ts), from the browser: the manifest
 * goes first; the answer `missing_blobs` names what the workspace lacks; only that is
 * sent (small files inline in the repeated manifest, the rest with PUT /v1/blobs), and
 * the manifest again. Unchanged files never leave the machine.
 */
export async function deployDigestFirst(
  projectId: string,
  files: HashedFile[],
  options: { ttl?: string; publish: boolean },
  onProgress: (p: DeployProgress) => void,
): Promise<{ deployment: Deployment; uploadedFiles: number; uploadedBytes: number }> {
  let manifest: ManifestEntry[] = files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size }));
  const bySha = new Map(files.map((f) => [f.sha256, f]));
  let uploadedFiles = 0;
  let uploadedBytes = 0;
  const progress: DeployProgress = { phase: 'checking', bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0 };
  for (let round = 1; ; round++) {
    onProgress({ ...progress, phase: round === 1 ? 'checking' : 'deploying' });
    try {
      const deployment = await call(
        api.POST('/projects/{projectId}/deployments', {
          params: { path: { projectId } },
          // No `type`: a deploy keeps the project's own (naming another is refused).
          body: { files: manifest, ...(options.ttl ? { ttl: options.ttl } : {}), ...(options.publish ? {} : { publish: false }) },
        }),
      );
      onProgress({ ...progress, phase: 'done', bytesDone: progress.bytesTotal });
      return { deployment, uploadedFiles, uploadedBytes };
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'missing_blobs' || round >= DEPLOY_ROUNDS) throw err;
      const needed = ((err.body.missing as string[] | undefined) ?? []).map((sha) => bySha.get(sha)).filter((f): f is HashedFile => f !== undefined);
      if (needed.length === 0) throw err;
      const inline = pickInline(needed, INLINE_BYTES);
      const missing = needed.filter((f) => !inline.has(f.sha256));
      progress.bytesTotal += needed.reduce((n, f) => n + f.size, 0);
      progress.filesTotal += needed.length;
      progress.phase = 'uploading';
      onProgress({ ...progress });
      if (inline.size > 0) {
        const contents = new Map<string, string>();
        await mapLimit([...inline], 8, async (sha) => {
          const f = bySha.get(sha)!;
          contents.set(sha, bytesToBase64(f.bytes ?? (await f.file.arrayBuffer())));
        });
        manifest = manifest.map((entry) => {
          if (!('sha256' in entry) || !contents.has(entry.sha256)) return entry;
          const content = contents.get(entry.sha256)!;
          contents.delete(entry.sha256);
          return { path: entry.path, content, encoding: 'base64' };
        });
      }
      await mapLimit(missing, 6, async (f) => {
        await putBlob(f, (n) => {
          progress.bytesDone += n;
          onProgress({ ...progress });
        });
        progress.filesDone++;
        onProgress({ ...progress });
      });
      // Inline bytes travel with the next manifest: counted when it is accepted.
      const inlineBytes = needed.filter((f) => inline.has(f.sha256)).reduce((n, f) => n + f.size, 0);
      progress.bytesDone += inlineBytes;
      progress.filesDone += inline.size;
      uploadedFiles += needed.length;
      uploadedBytes += needed.reduce((n, f) => n + f.size, 0);
    }
  }
}

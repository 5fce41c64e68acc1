import { api, call, type Deployment, inWorkspace, transport } from './api';
import { ApiError } from './errors';
import { bytesToBase64, type HashedFile, type PickedFile } from './hashing';
import { INLINE_BYTES, runDigestDeploy } from './sdk';

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

/** PUT /v1/blobs/:sha256 through the transport (its upload reports progress, and a 401 refreshes once). */
async function putBlob(workspaceId: string, f: HashedFile, onBytes: (n: number) => void): Promise<void> {
  const answer = await transport.upload({
    method: 'PUT',
    path: `/v1/blobs/${f.sha256}`,
    body: f.file,
    headers: { 'Content-Type': 'application/octet-stream', ...inWorkspace(workspaceId) },
    onBytes,
  });
  if (answer.status >= 200 && answer.status < 300) return;
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    // not JSON: the status says enough
  }
  throw new ApiError(
    answer.status,
    String(body.code ?? `http_${answer.status}`),
    String(body.message ?? `Upload of ${f.path} failed (${answer.status})`),
    body,
  );
}

/**
 * The SDK's digest-first deploy (packages/sdk/digest-protocol.ts runDigestDeploy, which the
 * CLI runs too), from the browser: the manifest goes first; the answer `missing_blobs`
 * names what the workspace lacks; only that is sent (small files inline in the repeated
 * manifest, the rest with PUT /v1/blobs), and the manifest again. Unchanged files never
 * leave the machine. Progress counts every round's files together.
 */
export async function deployDigestFirst(
  workspaceId: string,
  projectId: string,
  files: HashedFile[],
  options: { ttl?: string; publish: boolean },
  onProgress: (p: DeployProgress) => void,
): Promise<{ deployment: Deployment; uploadedFiles: number; uploadedBytes: number }> {
  const progress: DeployProgress = { phase: 'checking', bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0 };
  // Inline files travel with the next manifest: counted when it is sent.
  let inlinePending = { files: 0, bytes: 0 };
  const emit = () => onProgress({ ...progress });
  const { deployment, uploadedFiles, uploadedBytes } = await runDigestDeploy(files, {
    inlineBytes: INLINE_BYTES,
    concurrency: 6,
    send: (manifest) =>
      call(
        api.POST('/projects/{projectId}/deployments', {
          params: { path: { projectId } },
          // No `type`: a deploy keeps the project's own (naming another is refused).
          body: { files: manifest, ...(options.ttl ? { ttl: options.ttl } : {}), ...(options.publish ? {} : { publish: false }) },
          headers: inWorkspace(workspaceId),
        }),
      ),
    missingOf: (err) => (err instanceof ApiError && err.code === 'missing_blobs' ? ((err.body.missing as string[] | undefined) ?? []) : undefined),
    base64: async (f) => bytesToBase64(f.bytes ?? (await f.file.arrayBuffer())),
    upload: (f, onBytes) => putBlob(workspaceId, f, onBytes),
    onRound: (round) => {
      progress.bytesDone += inlinePending.bytes;
      progress.filesDone += inlinePending.files;
      inlinePending = { files: 0, bytes: 0 };
      onProgress({ ...progress, phase: round === 1 ? 'checking' : 'deploying' });
    },
    onMissing: (needed, inline) => {
      progress.bytesTotal += needed.reduce((n, f) => n + f.size, 0);
      progress.filesTotal += needed.length;
      progress.phase = 'uploading';
      inlinePending = { files: inline.size, bytes: needed.filter((f) => inline.has(f.sha256)).reduce((n, f) => n + f.size, 0) };
      emit();
    },
    onBytes: (n) => {
      progress.bytesDone += n;
      emit();
    },
    onFileSent: (_f, unreported) => {
      progress.bytesDone += unreported;
      progress.filesDone++;
      emit();
    },
  });
  onProgress({ ...progress, phase: 'done', bytesDone: progress.bytesTotal });
  return { deployment, uploadedFiles, uploadedBytes };
}

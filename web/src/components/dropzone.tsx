import { FolderOpen } from 'lucide-react';
import { type ReactNode, useId, useState } from 'react';

import { type DeployProgress, filesFromDrop, type PickedFile } from '../deploy';
import { formatBytes, formatNumber } from '../locale';
import { ButtonIcon, ProgressBar } from './ui';

/** A file as the browser handed it over: its path inside what was dropped or picked (`site/index.html`). */
export interface DroppedFile {
  relativePath: string;
  file: File;
}

/**
 * Where a site's folder comes in, on the deploy page and the onboarding page alike: dropped
 * (a folder or loose files, read through the drop's entries) or picked with "Choose a
 * folder", the label of a hidden folder input, so the input is found by that name. `onPick`
 * gets what came, paths as the browser gave them; a drop with no file in it is `onError`'s.
 */
export function FolderDropzone({
  id,
  prompt,
  hint,
  onPick,
  onError,
}: {
  /** The input's id, where something outside finds it by id (the dashboard suite and the bench use `#folder-input`). */
  id?: string;
  prompt: ReactNode;
  hint?: ReactNode;
  onPick: (picked: DroppedFile[]) => void;
  onError: (error: unknown) => void;
}) {
  const ownId = useId();
  const inputId = id ?? ownId;
  const [over, setOver] = useState(false);
  return (
    <div
      className={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => {
        // Without this the browser opens the dropped file itself instead of firing drop.
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        filesFromDrop(e.dataTransfer.items).then((picked) => {
          if (picked.length === 0) onError(new Error('Nothing to deploy in what was dropped: drop a folder or files.'));
          else onPick(picked);
        }, onError);
      }}
    >
      <p>{prompt}</p>
      <input
        id={inputId}
        className="visually-hidden"
        type="file"
        multiple
        // A folder picker (every current browser; the attribute is not in React's types).
        {...{ webkitdirectory: '' }}
        onChange={(e) => onPick([...(e.target.files ?? [])].map((file) => ({ relativePath: file.webkitRelativePath || file.name, file })))}
      />
      <label className="button" htmlFor={inputId}>
        <ButtonIcon icon={FolderOpen} />
        Choose a folder
      </label>
      {hint ? <p className="muted">{hint}</p> : null}
    </div>
  );
}

/** What was picked, counted, and a warning when the site would have no home page. */
export function PickedSummary({ files }: { files: PickedFile[] }) {
  if (files.length === 0) return null;
  const total = files.reduce((n, f) => n + f.file.size, 0);
  return (
    <p role="status">
      {formatNumber(files.length)} file{files.length === 1 ? '' : 's'}, {formatBytes(total)} selected
      {files.some((f) => f.path === 'index.html') ? '' : ' (no index.html at the top: the site’s address will answer 404)'}.
    </p>
  );
}

/** Where the deploy of a picked folder has got to: the phase in the page's words, then the bytes uploaded once there are any to count. */
export function FolderProgress({ progress, className, children }: { progress: DeployProgress; className?: string; children: ReactNode }) {
  return (
    <div className={className} aria-live="polite">
      <p>{children}</p>
      {progress.phase === 'uploading' || progress.phase === 'deploying' || progress.phase === 'done' ? (
        <ProgressBar done={progress.bytesDone} total={progress.bytesTotal} label="Bytes uploaded" />
      ) : null}
    </div>
  );
}

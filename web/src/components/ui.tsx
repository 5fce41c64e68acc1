import { Check, ChevronLeft, ChevronRight, Copy, type LucideIcon } from 'lucide-react';
import { lazy, type ReactNode, Suspense, useEffect, useId, useState } from 'react';
import { Link, Navigate, useLocation } from 'react-router';

import { ApiError } from '../errors';
import { formatBytes } from '../locale';
import { useOptionalWorkspaceId } from '../workspace';
import type { ConfirmDialogProps } from './design/confirm-modal';

/** The API refused because a workspace requires a second factor this person lacks (issue 32). */
export function requiresSecondFactor(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'two_factor_required';
}

/** To the Security page, which names the workspace that asks for a second factor and sets one up. */
export function ToSecurityPage({ requiredBy }: { requiredBy: string }) {
  return <Navigate to="/security" replace state={{ twoFactorRequiredBy: requiredBy }} />;
}

/**
 * An error where the user acted, with the API's own message; a 402 offers the upgrade
 * (in the workspace named, else the one the page acts in), wherever it happens. A workspace
 * that requires a second factor this person lacks sends them to the Security page instead,
 * as WorkspaceScope does: its page's own query may be refused first (the refusal flashed
 * before the redirect), or alone (the workspace itself still cached from before the
 * requirement, so the scope never learns of it and the page kept showing the refusal).
 */
export function ErrorNote({ error, workspaceId: named }: { error: unknown; workspaceId?: string }) {
  const { pathname } = useLocation();
  const page = useOptionalWorkspaceId();
  const workspaceId = named ?? page;
  if (!error) return null;
  if (workspaceId && requiresSecondFactor(error)) return <ToSecurityPage requiredBy={workspaceId} />;
  const message = error instanceof Error ? error.message : String(error);
  const paymentRequired = error instanceof ApiError && error.status === 402;
  const quota = paymentRequired && error.code === 'quota_exceeded';
  // On the billing page itself (a 402 for a missing payment method) the link would lead here.
  const offerUpgrade = paymentRequired && workspaceId && !pathname.endsWith(`/w/${workspaceId}/billing`);
  return (
    <div role="alert" className="note error">
      <strong>{quota ? 'Over your plan’s limit: ' : 'Error: '}</strong>
      {message}
      {offerUpgrade ? (
        <>
          {' '}
          <Link to={`/w/${workspaceId}/billing`}>Upgrade the plan</Link>
        </>
      ) : null}
      {requiresSecondFactor(error) ? (
        <>
          {' '}
          <Link to="/security">Set up two-factor sign-in</Link>
        </>
      ) : null}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/**
 * A list with nothing in it yet: `title` names what is missing, the text says what the list
 * is for, and `action` (a link or button) is the way to fill it.
 */
export function Empty({ title, children, action }: { title?: string; children: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      {title ? <p className="empty-title">{title}</p> : null}
      {title || action ? <p>{children}</p> : children}
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}

/** Moves focus to the first field of the form with this id: an empty state's way to "create one above". */
export function FocusFormButton({ form, icon, children }: { form: string; icon?: LucideIcon; children: ReactNode }) {
  return (
    <button
      type="button"
      className="primary"
      onClick={() => {
        const field = document.getElementById(form)?.querySelector<HTMLElement>('input, select, textarea');
        field?.scrollIntoView({ block: 'center' });
        field?.focus();
      }}
    >
      {icon ? <ButtonIcon icon={icon} /> : null}
      {children}
    </button>
  );
}

/** A small coloured label for a state (live, pending, failed…); the class names the state. */
export function Badge({ tone, children }: { tone: string; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

/** One labelled input; every input in the app goes through this, so none lacks a label. */
export function Field({ label, hint, ...input }: { label: string; hint?: ReactNode } & React.InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint ? (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/**
 * The icon of a button or button-like link, placed before its text: 16 px and hidden from
 * assistive technology, so the button keeps the accessible name its text gives it (the
 * tests and screen readers find it by that). One way for every page, aligned by `.btn-icon`.
 */
export function ButtonIcon({ icon: Glyph }: { icon: LucideIcon }) {
  return <Glyph className="btn-icon" size={16} aria-hidden="true" focusable="false" />;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="small"
      onClick={() => {
        void navigator.clipboard
          ?.writeText(text)
          .then(() => setCopied(true))
          // Clipboard refused (insecure context, permissions): the text stays visible to select by hand.
          .catch(() => setCopied(false));
      }}
      aria-label={`${label}: ${text}`}
    >
      {copied ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
      {copied ? 'Copied' : label}
    </button>
  );
}

export function ProgressBar({ done, total, label }: { done: number; total: number; label: string }) {
  const pct = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 100;
  return (
    <div className="progress">
      <progress max={total || 1} value={Math.min(done, total || 1)} aria-label={label} />
      <span>
        {formatBytes(done)} of {formatBytes(total)} ({pct}%)
      </span>
    </div>
  );
}

/** The modal itself loads when first opened: React Aria's overlay code stays out of the initial JavaScript. */
const ConfirmModal = lazy(() => import('./design/confirm-modal').then((m) => ({ default: m.ConfirmModal })));

/**
 * A confirmation in a modal dialog (React Aria's: focus trapped inside, Escape closes,
 * focus returns to the button that opened it). With `typed`, the user must type that
 * text before the action is enabled (deleting a project).
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  // Mounted from the first opening on, so the closing (and every later opening) needs no load.
  const [wanted, setWanted] = useState(props.open);
  useEffect(() => {
    if (props.open) setWanted(true);
  }, [props.open]);
  if (!wanted && !props.open) return null;
  return (
    <Suspense fallback={null}>
      <ConfirmModal {...props} />
    </Suspense>
  );
}

/** What ConfirmMutation needs of a TanStack Query mutation. */
interface Mutation<V> {
  isPending: boolean;
  error: unknown;
  mutate: (variables: V) => void;
  reset: () => void;
}

/**
 * The confirmation of a row action: open while `target` is set, runs `mutation` on
 * `variables(target)`, and on closing clears the row (`onClose`) and the mutation's error,
 * so the next row's dialog does not open on the last one's refusal.
 */
export function ConfirmMutation<T, V>({
  target,
  mutation,
  variables,
  onClose,
  ...dialog
}: {
  target: T | null;
  mutation: Mutation<V>;
  variables: (target: T) => V;
  onClose: () => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  typed?: string;
  danger?: boolean;
}) {
  return (
    <ConfirmDialog
      {...dialog}
      open={target !== null}
      busy={mutation.isPending}
      error={mutation.error}
      onConfirm={() => target !== null && mutation.mutate(variables(target))}
      onClose={() => {
        onClose();
        mutation.reset();
      }}
    />
  );
}

/** `value`, once it has stopped changing for `ms` (a search box asks the API once per pause, not per key). */
export function useDebounced<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Previous / next for a paginated list (the API's meta). */
export function Pager({
  page,
  totalPages,
  onPage,
  label = 'Pages',
  previous = 'Previous',
  next = 'Next',
}: {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
  label?: string;
  /** Button names: a newest-first history reads better as Newer / Older. */
  previous?: string;
  next?: string;
}) {
  if (totalPages <= 1) return null;
  return (
    <div className="actions" role="navigation" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        <ChevronLeft size={16} aria-hidden="true" />
        {previous}
      </button>
      <span>
        Page {page} of {totalPages}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        {next}
        <ChevronRight size={16} aria-hidden="true" />
      </button>
    </div>
  );
}

/** A labelled <select>, like Field for inputs. */
export function SelectField({
  label,
  hint,
  children,
  ...select
}: { label: string; hint?: ReactNode; children: ReactNode } & React.SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...select}>
        {children}
      </select>
      {hint ? (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/**
 * A table that may scroll sideways at 375 px: focusable and named, so a keyboard user
 * can scroll it too (axe's scrollable-region-focusable).
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

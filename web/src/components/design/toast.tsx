import { X } from 'lucide-react';
import { useSyncExternalStore } from 'react';

/*
 * Toasts: the result of an action ("Project created"), announced politely and gone after
 * a few seconds. Our own small region rather than RAC's UNSTABLE_Toast: RAC makes each
 * toast an `alertdialog` whose content is an assertive `alert`, which interrupts a screen
 * reader for routine news, and its API is still marked unstable. Here the container is a
 * polite live region from the first render (a region added with its message is announced
 * unreliably), and each toast is a `status`; the container has no role of its own, so a
 * page's other status messages stay the only ones a `status` query finds when no toast shows.
 */

interface Toast {
  id: number;
  message: string;
  tone: 'ok' | 'error';
}

const LIFETIME_MS = 6000;
let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function dismissToast(id: number): void {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

/** Shows `message` in the toast region; callable from anywhere (a mutation's onSuccess). */
export function toast(message: string, tone: Toast['tone'] = 'ok'): void {
  const id = nextId++;
  // The last three at most: a burst of actions must not cover the page.
  toasts = [...toasts, { id, message, tone }].slice(-3);
  emit();
  setTimeout(() => dismissToast(id), LIFETIME_MS);
}

function useToasts(): Toast[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => toasts,
  );
}

export function Toaster() {
  const list = useToasts();
  return (
    <div className="toasts" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} className={`toast ${t.tone}`} role="status">
          <span>{t.message}</span>
          <button type="button" className="icon ghost" aria-label="Dismiss" onClick={() => dismissToast(t.id)}>
            <X size={16} aria-hidden="true" />
          </button>
        </div>
      ))}
    </div>
  );
}

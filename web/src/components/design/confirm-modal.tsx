import { TriangleAlert } from 'lucide-react';
import { type ReactNode, useEffect, useState } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';

import { ErrorNote, Field } from '../ui';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  typed?: string;
  danger?: boolean;
  busy?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onClose: () => void;
}

/** ConfirmDialog's modal (ui.tsx loads it on first use). */
export function ConfirmModal({ open, title, children, confirmLabel, typed, danger, busy, error, onConfirm, onClose }: ConfirmDialogProps) {
  const [value, setValue] = useState('');
  // Each opening starts with an empty confirmation box.
  useEffect(() => {
    if (open) setValue('');
  }, [open]);
  const ready = !typed || value === typed;
  return (
    <ModalOverlay
      className="modal-overlay"
      isOpen={open}
      onOpenChange={(isOpen) => {
        if (!isOpen) onClose();
      }}
      // A click beside the dialog must not throw away a half-typed confirmation; Escape and Cancel close it.
      isDismissable={false}
    >
      <Modal className="modal">
        <Dialog className="dialog">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (ready && !busy) onConfirm();
            }}
          >
            <Heading slot="title" className="dialog-title">
              {danger ? <TriangleAlert size={20} aria-hidden="true" className="danger-icon" /> : null}
              {title}
            </Heading>
            {children}
            {typed ? <Field label={`Type ${typed} to confirm`} value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" autoFocus /> : null}
            <ErrorNote error={error} />
            <div className="actions dialog-actions">
              <button type="button" onClick={onClose}>
                Cancel
              </button>
              <button type="submit" className={danger ? 'danger' : 'primary'} disabled={!ready || busy} autoFocus={!typed}>
                {busy ? 'Working…' : confirmLabel}
              </button>
            </div>
          </form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

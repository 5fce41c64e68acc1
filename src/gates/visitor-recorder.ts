/**
 * The port through which the email gate records a visitor; the leads module binds the
 * implementation (LeadsModule provides VISITOR_RECORDER, GatesModule.forRoot is given
 * that module), so gates/ never imports leads/.
 */
export const VISITOR_RECORDER = Symbol('VisitorRecorder');

export type VisitorEmailCheck = { ok: true; email: string } | { ok: false; error: string };

export interface VisitorRecorder {
  /** The longest address kept: the form shows back at most one character more, so "too long" is visible. */
  readonly maxEmailLength: number;
  /** The address as typed, checked and normalised the way it is stored, or what is wrong with it. */
  checkEmail(raw: string | null): VisitorEmailCheck;
  /**
   * Records (once) that this address passed the site's email gate: the id of its lead,
   * new or already known (the gate cookie carries it); 'gone' when the site no longer exists.
   */
  record(projectId: string, email: string): Promise<{ leadId: string } | 'gone'>;
}

/**
 * The one form an email is stored and compared in. Lowercasing the whole address
 * (local part included) is what makes "Ann@x.io" and "ann@x.io" one account; every
 * mail provider people use treats them alike.
 */
export function normalizeEmail(email: string): string {
  return email.normalize('NFC').toLowerCase();
}

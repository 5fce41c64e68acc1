import { normalizeLeadText, openEmail, type SealedEmail, sealEmail, type WorkspaceIndex } from '../leads/lead-crypto';

/**
 * How a form submission is sealed (issue 30), with the leads keyring and the leads'
 * primitives (docs/security.md, "Leads: encryption and search"): the fields, as JSON in
 * the order the visitor sent them, under AES-256-GCM with the form and submission ids as
 * additional data (a ciphertext moved to another row no longer opens); searchable through
 * the workspace's keyed trigram tokens of every value.
 */

export type SubmissionFields = Record<string, string>;

export function submissionAad(formId: string, submissionId: string): Buffer {
  return Buffer.from(`statichost-form-submission:v1:${formId}:${submissionId}`, 'utf8');
}

export function sealFields(key: Buffer, fields: SubmissionFields, aad: Buffer): SealedEmail {
  return sealEmail(key, JSON.stringify(fields), aad);
}

/** The fields, or null when the row does not authenticate (wrong key, tampered, moved). */
export function openFields(key: Buffer, sealed: SealedEmail, aad: Buffer): SubmissionFields | null {
  const json = openEmail(key, sealed, aad);
  if (json === null) return null;
  const parsed = JSON.parse(json) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  return parsed as SubmissionFields;
}

/** The search text of one value: normalised as a lead's email is, so one search finds both alike. */
export const searchText = (value: string) => normalizeLeadText(value);

/** Distinct tokens of every value's trigrams, ascending: a search's tokens are a subset of a matching row's. */
export function fieldTokens(index: WorkspaceIndex, fields: SubmissionFields): number[] {
  const all = new Set<number>();
  for (const value of Object.values(fields)) for (const token of index.tokens(searchText(value))) all.add(token);
  return [...all].sort((a, b) => a - b);
}

import { searchText, type SubmissionFields } from './submission-crypto';

/** Whether one of the values contains `term` (already normalised with `searchText`), every character literal. */
export function matchesSearch(fields: SubmissionFields, term: string): boolean {
  return Object.values(fields).some((value) => typeof value === 'string' && searchText(value).includes(term));
}

/**
 * A submission's values in the CSV's columns: one per field the form declares (empty
 * when not sent), and whatever else it holds (a field an older deployment declared) as
 * JSON in one last column, so an export loses nothing.
 */
export function splitColumns(formFields: readonly string[], fields: SubmissionFields): { known: string[]; other: string } {
  const known = formFields.map((name) => (Object.prototype.hasOwnProperty.call(fields, name) ? String(fields[name]) : ''));
  const declared = new Set(formFields);
  const rest = Object.entries(fields).filter(([name]) => !declared.has(name));
  return { known, other: rest.length > 0 ? JSON.stringify(Object.fromEntries(rest)) : '' };
}

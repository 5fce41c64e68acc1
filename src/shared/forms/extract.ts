import { Parser } from 'htmlparser2';

import type { DeclaredForm } from './declared-form';

/** A form as one HTML file declares it: `page` is the deployment's path, added by the caller. */
export type ScannedForm = Omit<DeclaredForm, 'page' | 'files'> & { files: boolean };

/**
 * Bounds of the work one deploy can make the scanner do (docs/forms.md, "Limits"): an
 * HTML file larger than this is not scanned (its forms are not registered; the deploy
 * logs it, and does not yet say so in the deployment's warnings); past the form and field
 * counts, further ones are ignored.
 */
export const SCAN_LIMITS = {
  maxHtmlBytes: 2 * 1024 * 1024,
  maxFormsPerDeployment: 100,
  maxFieldsPerForm: 100,
  maxNameLength: 128,
} as const;

/** The hidden field that names the form in a submission (Netlify's convention). */
export const FORM_NAME_FIELD = 'form-name';

const FIELD_TAGS = new Set(['input', 'select', 'textarea', 'button']);

/**
 * The forms an HTML document declares: `<form data-statichost-form="name">`, or Netlify's
 * `<form netlify name="…">` / `<form data-netlify="true" name="…">`. Fields are the named
 * `input`, `select`, `textarea` and submit `button`s inside, in document order, each name
 * once, without `form-name` and the honeypot. htmlparser2 parses forgivingly, as browsers
 * do: unclosed tags and junk never throw.
 */
export function extractForms(html: string): ScannedForm[] {
  const forms: ScannedForm[] = [];
  let current: (ScannedForm & { seen: Set<string> }) | null = null;
  let depth = 0;
  const parser = new Parser(
    {
      onopentag(tag, attrs) {
        if (tag === 'form') {
          if (current) {
            depth++; // nested forms are invalid HTML; browsers ignore the inner one
            return;
          }
          const name = formName(attrs);
          if (name === null || forms.length >= SCAN_LIMITS.maxFormsPerDeployment) return;
          const honeypot = nonEmpty(attrs['data-statichost-honeypot'] ?? attrs['netlify-honeypot']);
          current = { name, fields: [], honeypot, action: sitePath(attrs.action), files: false, seen: new Set() };
          depth = 0;
          return;
        }
        if (!current || !FIELD_TAGS.has(tag)) return;
        const type = (attrs.type ?? '').toLowerCase();
        // A button only submits a value when it is a submit button (the default type).
        if (tag === 'button' && type !== '' && type !== 'submit') return;
        if (tag === 'input' && type === 'file') current.files = true;
        const field = nonEmpty(attrs.name);
        if (field === null || field === FORM_NAME_FIELD || field === current.honeypot || field.length > SCAN_LIMITS.maxNameLength) return;
        if (current.seen.has(field) || current.fields.length >= SCAN_LIMITS.maxFieldsPerForm) return;
        current.seen.add(field);
        current.fields.push(field);
      },
      onclosetag(tag) {
        if (tag !== 'form' || !current) return;
        if (depth > 0) {
          depth--;
          return;
        }
        const { seen: _seen, ...form } = current;
        forms.push(form);
        current = null;
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
  );
  // A browser reads a NUL in a tag or attribute as U+FFFD (HTML's tokenizer); PostgreSQL's
  // text and jsonb refuse NUL, so a name holding one would fail the deploy's transaction.
  parser.write(html.replace(/\u0000/g, '\ufffd'));
  parser.end();
  if (current) {
    // An unclosed form ends with the document, as in a browser.
    const { seen: _seen, ...form } = current as ScannedForm & { seen: Set<string> };
    forms.push(form);
  }
  return forms;
}

/**
 * One deployment's forms from its files' scans: a name declared on several pages (a
 * contact form in every page's footer) is one form, its fields the union in order of
 * first appearance; honeypot, action and page are the first declaration's.
 */
export function mergeForms(scans: { path: string; forms: ScannedForm[] }[]): (DeclaredForm & { files: boolean })[] {
  const byName = new Map<string, DeclaredForm & { files: boolean }>();
  for (const { path, forms } of [...scans].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    for (const f of forms) {
      const known = byName.get(f.name);
      if (!known) {
        if (byName.size >= SCAN_LIMITS.maxFormsPerDeployment) continue;
        byName.set(f.name, { name: f.name, fields: [...f.fields], honeypot: f.honeypot, action: f.action, page: path, files: f.files });
        continue;
      }
      known.files ||= f.files;
      for (const field of f.fields) {
        if (!known.fields.includes(field) && known.fields.length < SCAN_LIMITS.maxFieldsPerForm) known.fields.push(field);
      }
    }
  }
  return [...byName.values()];
}

function formName(attrs: Record<string, string>): string | null {
  const own = attrs['data-statichost-form'];
  if (own !== undefined) return validName(own) ?? validName(attrs.name);
  const netlify = 'netlify' in attrs || (attrs['data-netlify'] ?? '').toLowerCase() === 'true';
  return netlify ? validName(attrs.name) : null;
}

function validName(value: string | undefined): string | null {
  const name = nonEmpty(value);
  return name !== null && name.length <= SCAN_LIMITS.maxNameLength ? name : null;
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/**
 * The action as a path on the site (`/thanks/`, `/thanks.html?x`), or null for none, an
 * absolute URL, or anything that could leave the site: the thank-you page must be one
 * of the site's files, which the intake checks against the deployment.
 */
function sitePath(action: string | undefined): string | null {
  const value = nonEmpty(action);
  if (value === null || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return null;
  if (/[\u0000-\u001f\u007f]/.test(value) || value.length > 1024) return null;
  try {
    const url = new URL(value, 'http://site.invalid');
    return url.origin === 'http://site.invalid' ? url.pathname : null;
  } catch {
    return null;
  }
}

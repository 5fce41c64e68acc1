import { isEmail } from 'class-validator';

import { normalizeLeadText } from './lead-crypto';

/** RFC 5321's limit on a whole address. */
export const MAX_EMAIL_LENGTH = 254;

export type EmailCheck = { ok: true; email: string } | { ok: false; error: string };

/**
 * What the email gate accepts: the trimmed value, at most 254 characters, in a
 * real address shape (validator.js's isEmail: a dotted domain with a TLD, no IP
 * literals, no display names), normalised for storage (NFC, lowercase).
 */
export function checkLeadEmail(raw: string | null | undefined): EmailCheck {
  const value = (raw ?? '').trim();
  if (value === '') return { ok: false, error: 'Enter your email address.' };
  if (Array.from(value).length > MAX_EMAIL_LENGTH) {
    return { ok: false, error: `That email address is too long (at most ${MAX_EMAIL_LENGTH} characters).` };
  }
  const valid = isEmail(value, {
    allow_display_name: false,
    require_tld: true,
    allow_ip_domain: false,
    allow_utf8_local_part: true,
    domain_specific_validation: false,
  });
  if (!valid) return { ok: false, error: 'That does not look like an email address. Check it and try again.' };
  return { ok: true, email: normalizeLeadText(value) };
}

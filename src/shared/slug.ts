import { randomString } from '../common/ids';

/**
 * Project slugs: the DNS label under which a project is served,
 * `<slug>.<SITES_DOMAIN>`.
 */

export const SLUG_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const MAX_SLUG_LENGTH = 63;

/**
 * Labels no project may take, because a site there would impersonate the platform
 * or collide with a name the operator (or a mail or DNS setup) needs on the sites
 * domain. Ordinary words users want for their own sites (blog, shop, portfolio,
 * demo) are deliberately not here.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  // The platform's own hosts and surfaces: a site here could phish its users.
  'api',
  'app',
  'www',
  'admin',
  'administrator',
  'dashboard',
  'console',
  'account',
  'accounts',
  'auth',
  'login',
  'logout',
  'signin',
  'signup',
  'register',
  'sso',
  'oauth',
  'id',
  'identity',
  'billing',
  'pay',
  'payment',
  'payments',
  'checkout',
  'invoice',
  'invoices',
  'support',
  'help',
  'status',
  'docs',
  'dev',
  'staging',
  'preview',
  'sandbox',
  'internal',
  'system',
  'security',
  'abuse',
  'legal',
  'privacy',
  'terms',
  'root',
  'statichost',
  // Asset and routing names an operator puts in front of or beside the router.
  'static',
  'assets',
  'cdn',
  'media',
  'files',
  'uploads',
  'edge',
  'proxy',
  'gateway',
  'router',
  'origin',
  'sites',
  // Mail and DNS infrastructure: certificate authorities and mail providers trust
  // these names (e.g. admin@, postmaster@, autoconfig for mail clients, ns1 for delegation).
  'mail',
  'email',
  'smtp',
  'imap',
  'pop',
  'pop3',
  'mx',
  'webmail',
  'postmaster',
  'hostmaster',
  'webmaster',
  'autoconfig',
  'autodiscover',
  'ns',
  'ns1',
  'ns2',
  'ns3',
  'ns4',
  'dns',
  'ftp',
  'sftp',
  'ssh',
  'vpn',
  // Names that mean "this machine" or "nothing" to people and tools.
  'localhost',
  'local',
  'host',
  'default',
  'example',
  'test',
  'invalid',
  'null',
  'undefined',
]);

const DNS_LABEL = 'slug must be a DNS label';

declare const label: unique symbol;
declare const fresh: unique symbol;
/**
 * A slug that passed slugProblem: what a deploy may name (older projects keep slugs
 * today's rules would refuse). Made only here, by parseSlug, at the request's edge.
 */
export type Slug = string & { readonly [label]: true };
/** A slug a new project may take (newSlugProblem): every NewSlug is a Slug. */
export type NewSlug = Slug & { readonly [fresh]: true };

/** A parsed value, or what is wrong with the input (for a 400). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The slug of a lookup or deploy, or what is wrong with it. */
export function parseSlug(raw: string): Parsed<Slug> {
  const problem = slugProblem(raw);
  return problem === null ? { ok: true, value: raw as Slug } : { ok: false, problem };
}

/** A slug a new project may take, or what is wrong with it. */
export function parseNewSlug(raw: string): Parsed<NewSlug> {
  const problem = newSlugProblem(raw);
  return problem === null ? { ok: true, value: raw as NewSlug } : { ok: false, problem };
}

/** Null when `slug` may be used; otherwise what is wrong with it, for a 400. */
export function slugProblem(slug: string): string | null {
  if (typeof slug !== 'string') return `${DNS_LABEL}, got a ${typeof slug}`;
  if (slug.length === 0) return `${DNS_LABEL}: it is empty`;
  if (slug.length > MAX_SLUG_LENGTH) return `${DNS_LABEL}: at most ${MAX_SLUG_LENGTH} characters, got ${slug.length}`;
  const bad = /[^a-z0-9-]/.exec(slug);
  if (bad) return `${DNS_LABEL}: only lower-case letters a-z, digits and "-" are allowed, found ${JSON.stringify(bad[0])}`;
  if (!SLUG_PATTERN.test(slug)) return `${DNS_LABEL}: it must start and end with a letter or a digit`;
  // "xn--" labels are punycode: they display as other (Unicode) names and can imitate
  // other sites; IDNA reserves "--" in positions 3-4 for such encodings in general.
  if (slug.startsWith('xn--')) return `slug ${JSON.stringify(slug)} is refused: labels starting "xn--" are punycode names`;
  if (slug.slice(2, 4) === '--') return `slug ${JSON.stringify(slug)} is refused: "--" in the 3rd and 4th characters is reserved by IDNA`;
  if (RESERVED_SLUGS.has(slug)) return `slug ${JSON.stringify(slug)} is reserved`;
  return null;
}

/**
 * Null when a new project may take `slug`. Stricter than slugProblem: "--" anywhere is
 * refused, because `<slug>--<version>` is a deployment's preview label
 * (src/shared/preview-label.ts) and a new slug such as "shop--2" would take over
 * the preview address of project "shop". Slugs taken before this rule keep working
 * (slugProblem still accepts them for lookups and deploys).
 */
export function newSlugProblem(slug: string): string | null {
  const problem = slugProblem(slug);
  if (problem) return problem;
  if (slug.includes('--')) return `slug ${JSON.stringify(slug)} is refused: "--" is reserved for preview addresses (<slug>--<version>)`;
  // "ab--7" has "--" in the 3rd and 4th characters, which IDNA reserves and certificate
  // authorities refuse to sign: a 2-character project's previews could get no certificate.
  if (slug.length === 2) {
    return `slug ${JSON.stringify(slug)} is refused: a slug has 1 or at least 3 characters (the preview address ${slug}--1 would be a name certificate authorities refuse)`;
  }
  return null;
}

// Letters NFKD does not decompose into a base letter and marks.
const TRANSLITERATIONS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŋ: 'n',
};

/** Cuts to `max` characters without leaving a "-" at the end. */
function cut(slug: string, max: number): string {
  return slug.slice(0, max).replace(/-+$/, '');
}

/**
 * A valid slug derived from a project name ("Café Menu 2024" → "cafe-menu-2024").
 * Never throws; the caller still has to check it is free, and retry with
 * withRandomSuffix when it is taken.
 */
export function deriveSlug(name: string): NewSlug {
  return deriveSlugText(name) as NewSlug;
}

// Produces no "--" (runs of separators collapse), so the result is a NewSlug.
function deriveSlugText(name: string): string {
  const slug = cut(
    String(name)
      // Decompose first: NFKD also turns compatibility forms ("Ａ", "ﬁ") into capitals
      // and letters that the lower-casing below then catches.
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[ßæœøłđðþıħŧŋ]/g, (ch) => TRANSLITERATIONS[ch])
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+/, ''),
    MAX_SLUG_LENGTH,
  );
  if (slug === '') return 'site';
  if (newSlugProblem(slug) === null) return slug;
  // Reserved ("api" → "api-site") or 2 characters ("ab" → "ab-site"); the collapsing above leaves no "--" to worry about.
  const suffixed = `${cut(slug, MAX_SLUG_LENGTH - '-site'.length)}-site`;
  return newSlugProblem(suffixed) === null ? suffixed : 'site';
}

export const RANDOM_SUFFIX_LENGTH = 6;

/** `<base>-<6 random [a-z0-9]>`, with base shortened so the whole stays a valid label. */
export function withRandomSuffix(base: NewSlug): NewSlug;
/** The CLI's folder names: a valid slug, not necessarily one a new project may take. */
export function withRandomSuffix(base: string): string;
// A NewSlug base has no "--", so neither has its cut head: the result is a NewSlug too.
export function withRandomSuffix(base: string): string {
  const suffix = randomString(RANDOM_SUFFIX_LENGTH);
  const head = cut(base, MAX_SLUG_LENGTH - RANDOM_SUFFIX_LENGTH - 1);
  const slug = `${head}-${suffix}`;
  // Only a base that was not a valid slug to begin with can get here.
  return head !== '' && slugProblem(slug) === null ? slug : `site-${suffix}`;
}

/**
 * The mails the service sends, each as a subject and a plain-text and an HTML part.
 * Pure functions of their data and the product's name and address, so they are tested
 * here without a server. No images, no tracking pixels, no link rewriting: the links
 * are exactly the ones the text shows.
 */

export interface MailBrand {
  product: string;
  /** The public base URL of the API and dashboard. */
  baseUrl: string;
}

export type MailTemplate =
  | { template: 'verify_email'; data: { name: string; link: string; email: string; change: boolean } }
  | { template: 'email_changed'; data: { name: string; oldEmail: string; newEmail: string } }
  | { template: 'password_reset'; data: { name: string; link: string } }
  | { template: 'invitation'; data: { workspace: string; inviter: string; role: string; link: string; hasAccount: boolean } }
  | { template: 'webhook_disabled'; data: { name: string; url: string; reason: string; link: string } }
  | NotificationMail
  | UsageMail
  | BillingMail;

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  /** Every link in the mail (logged when mail goes to files, for a developer to click). */
  links: string[];
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** A paragraph or a link, rendered once as text and once as HTML. */
type Block = { p: string } | { link: string; label: string };

function render(brand: MailBrand, subject: string, greeting: string, blocks: Block[]): RenderedMail {
  const links = blocks.flatMap((b) => ('link' in b ? [b.link] : []));
  const footer = `${brand.product} · ${brand.baseUrl}`;
  const text = [greeting, ...blocks.map((b) => ('p' in b ? b.p : `${b.label}:\n${b.link}`)), '--', footer].join('\n\n') + '\n';
  const htmlBlocks = blocks.map((b) =>
    'p' in b
      ? `<p>${escapeHtml(b.p)}</p>`
      : `<p><a href="${escapeHtml(b.link)}">${escapeHtml(b.label)}</a></p>\n<p style="font-size:small;word-break:break-all">${escapeHtml(b.link)}</p>`,
  );
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:sans-serif;line-height:1.5;max-width:36em">',
    `<p>${escapeHtml(greeting)}</p>`,
    ...htmlBlocks,
    `<hr><p style="font-size:small;color:#666">${escapeHtml(footer)}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { subject, text, html, links };
}

export function renderMail(brand: MailBrand, mail: MailTemplate): RenderedMail {
  const product = brand.product;
  switch (mail.template) {
    case 'verify_email': {
      const d = mail.data;
      return render(brand, `Confirm your email address for ${product}`, `Hello ${d.name},`, [
        {
          p: d.change
            ? `You asked to change the email address of your ${product} account to ${d.email}.`
            : `Welcome to ${product}. Please confirm that ${d.email} is your address.`,
        },
        { link: d.link, label: 'Confirm this address' },
        { p: 'The link works once, for 24 hours. If you did not ask for this, ignore this mail.' },
      ]);
    }
    case 'email_changed': {
      const d = mail.data;
      return render(brand, `The email address of your ${product} account changed`, `Hello ${d.name},`, [
        { p: `The email address of your ${product} account changed from ${d.oldEmail} to ${d.newEmail}.` },
        { p: 'If you did not do this, reset your password at once and contact the operator of this service.' },
      ]);
    }
    case 'password_reset': {
      const d = mail.data;
      return render(brand, `Reset your ${product} password`, `Hello ${d.name},`, [
        { p: `Someone (hopefully you) asked to reset the password of your ${product} account.` },
        { link: d.link, label: 'Choose a new password' },
        {
          p: 'The link works once, for one hour. Setting a new password signs you out everywhere. If you did not ask for this, ignore this mail: your password stays as it is.',
        },
      ]);
    }
    case 'invitation': {
      const d = mail.data;
      return render(brand, `${d.inviter} invited you to ${d.workspace} on ${product}`, 'Hello,', [
        { p: `${d.inviter} invited you to join the workspace "${d.workspace}" on ${product} as ${d.role}.` },
        d.hasAccount ? { link: d.link, label: 'See the invitation' } : { link: d.link, label: `Create your ${product} account with this address, then accept` },
        { p: 'You can accept once your email address is confirmed. If you do not know the sender, ignore this mail.' },
      ]);
    }
    case 'webhook_disabled': {
      const d = mail.data;
      return render(brand, `A webhook of your ${product} workspace was turned off`, `Hello ${d.name},`, [
        { p: `${product} stopped sending events to ${d.url}: ${d.reason}.` },
        { p: 'Fix the receiver, then turn the endpoint on again; events that happened while it was off are not sent.' },
        { link: d.link, label: 'See your webhooks' },
      ]);
    }
    case 'usage_threshold':
      return renderUsageMail(brand, mail);
    default:
      return isBillingMail(mail) ? renderBillingMail(brand, mail) : renderNotificationMail(brand, mail);
  }
}

/** The mail notifications of issue 30 (src/notifications): each names its workspace and ends with how to stop it. */
export type NotificationMail =
  | {
      template: 'notify_build_failed';
      data: NotificationFooter & { name: string; projectSlug: string; branch: string | null; commitSha: string | null; error: string; buildUrl: string };
    }
  | { template: 'notify_domain_failed'; data: NotificationFooter & { name: string; projectSlug: string; domain: string; reason: string } }
  | { template: 'notify_digest'; data: NotificationFooter & DigestMailData };

/** A digest's entries, oldest first; `more` counts those left out of a long one. */
export interface DigestMailData {
  name: string;
  leads: { projectSlug: string; email: string }[];
  submissions: { projectSlug: string; formName: string; fields: [string, string][] }[];
  more: number;
  leadsUrl: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

interface NotificationFooter {
  workspace: string;
  settingsUrl: string;
  unsubscribeUrl: string;
}

function notificationFooter(d: NotificationFooter, what: string): Block[] {
  return [
    { p: `You get this mail because you turned on ${what} for the workspace "${d.workspace}".` },
    { link: d.unsubscribeUrl, label: 'Stop these mails (one click, no sign-in)' },
    { link: d.settingsUrl, label: 'All your notification settings' },
  ];
}

function renderNotificationMail(brand: MailBrand, mail: NotificationMail): RenderedMail {
  switch (mail.template) {
    case 'notify_build_failed': {
      const d = mail.data;
      const commit = d.commitSha ? ` at ${d.commitSha.slice(0, 12)}` : '';
      return render(brand, `Production build failed: ${d.projectSlug} (${d.workspace})`, `Hello ${d.name},`, [
        { p: `A build of the production branch${d.branch ? ` ${d.branch}` : ''}${commit} of ${d.projectSlug} failed; the live site is unchanged.` },
        { p: `Why: ${d.error}` },
        { link: d.buildUrl, label: 'The build and its log' },
        ...notificationFooter(d, 'mails about failed production builds'),
      ]);
    }
    case 'notify_domain_failed': {
      const d = mail.data;
      return render(brand, `Domain ${d.domain} stopped verifying (${d.workspace})`, `Hello ${d.name},`, [
        { p: `The custom domain ${d.domain} of ${d.projectSlug} no longer verifies, so it does not serve the site.` },
        { p: `The check said: ${d.reason}` },
        ...notificationFooter(d, 'mails about custom domains'),
      ]);
    }
    case 'notify_digest': {
      const d = mail.data;
      const total = d.leads.length + d.submissions.length + d.more;
      const counts = [
        ...(d.leads.length ? [plural(d.leads.length, 'new lead', 'new leads')] : []),
        ...(d.submissions.length ? [plural(d.submissions.length, 'form submission', 'form submissions')] : []),
      ].join(' and ');
      return render(brand, `${plural(total, 'new lead or form submission', 'new leads and form submissions')} in ${d.workspace}`, `Hello ${d.name},`, [
        { p: `${counts || 'New entries'} in the workspace "${d.workspace}":` },
        ...d.leads.map((l) => ({ p: `Lead on ${l.projectSlug}: ${l.email}` })),
        ...d.submissions.map((s) => ({
          p: `Form "${s.formName}" on ${s.projectSlug}: ${s.fields.map(([k, v]) => `${k}: ${v}`).join(' · ') || '(no fields)'}`,
        })),
        ...(d.more > 0 ? [{ p: `…and ${plural(d.more, 'more', 'more')} in the dashboard.` }] : []),
        { link: d.leadsUrl, label: 'All leads of the workspace' },
        ...notificationFooter(d, 'the digest of new leads and form submissions'),
      ]);
    }
  }
}

/**
 * Issue 31, metering: a workspace reached 50, 75 or 100 % of a metered limit this month.
 * Sent to every owner (billing mail, like a receipt: not a notification setting).
 */
export interface UsageMail {
  template: 'usage_threshold';
  data: {
    name: string;
    workspace: string;
    /** What is counted, e.g. "bandwidth", and how much of it, as the dashboard shows them. */
    what: string;
    used: string;
    limit: string;
    percent: number;
    plan: string;
    /** When a monthly count starts again; null for storage, which is not counted per month. */
    resetsAt: string | null;
    /** Only for bandwidth: what happens at 100 % (the spend cap's state). */
    atLimit: string | null;
    billingUrl: string;
  };
}

function renderUsageMail(brand: MailBrand, mail: UsageMail): RenderedMail {
  const d = mail.data;
  const when = d.resetsAt ? ' this month' : '';
  return render(brand, `${d.workspace} has used ${d.percent} % of its ${d.what}${when}`, `Hello ${d.name},`, [
    { p: `The workspace "${d.workspace}" has used ${d.used} of the ${d.limit} of ${d.what} its ${d.plan} plan includes${when} (${d.percent} %).` },
    ...(d.atLimit ? [{ p: d.atLimit }] : []),
    ...(d.resetsAt ? [{ p: `The count starts again at ${d.resetsAt}.` }] : []),
    { p: 'You get this mail once per threshold (50, 75 and 100 %) and month, as an owner of the workspace.' },
    { link: d.billingUrl, label: 'Usage, plans and the spend cap' },
  ]);
}

/**
 * The billing lifecycle's mails to a workspace's owners (issue 31, src/billing). Sent to
 * every active owner whatever their notification settings: they are about the account
 * itself, like a receipt, not an opt-in notification.
 */
export type BillingMail =
  | { template: 'billing_payment_failed'; data: BillingMailBase & { graceEndsAt: string } }
  | { template: 'billing_trial_ending'; data: BillingMailBase & { trialEndsAt: string } }
  | { template: 'billing_back_to_free'; data: BillingMailBase & { reason: 'canceled' | 'grace_over'; over: string[] } };

interface BillingMailBase {
  name: string;
  workspace: string;
  /** The paid tier concerned. */
  tier: string;
  /** The workspace's billing page in the dashboard (its "Manage billing" button opens the provider's portal). */
  billingUrl: string;
}

const BILLING_TEMPLATES: readonly string[] = ['billing_payment_failed', 'billing_trial_ending', 'billing_back_to_free'];

function isBillingMail(mail: MailTemplate): mail is BillingMail {
  return BILLING_TEMPLATES.includes(mail.template);
}

/** `2030-02-22T10:00:00.000Z` as `2030-02-22 10:00 UTC`: a date a person reads, with no locale to guess. */
const readableUtc = (isoTime: string) => `${isoTime.slice(0, 10)} ${isoTime.slice(11, 16)} UTC`;

function renderBillingMail(brand: MailBrand, mail: BillingMail): RenderedMail {
  const d = mail.data;
  switch (mail.template) {
    case 'billing_payment_failed': {
      const until = readableUtc(mail.data.graceEndsAt);
      return render(brand, `Payment failed: the ${d.tier} plan of ${d.workspace} on ${brand.product}`, `Hello ${d.name},`, [
        { p: `The renewal payment for the ${d.tier} plan of the workspace "${d.workspace}" on ${brand.product} failed.` },
        { p: `The workspace keeps its ${d.tier} plan until ${until} while the payment is tried again. Update the card to keep it:` },
        { link: d.billingUrl, label: 'Open billing ("Manage billing" updates the card)' },
        {
          p: `If it is still unpaid then, the workspace goes back to the free plan. Nothing is deleted and its sites keep serving, but deploys are paused while it uses more than the free plan allows.`,
        },
      ]);
    }
    case 'billing_trial_ending': {
      return render(brand, `The ${d.tier} trial of ${d.workspace} on ${brand.product} ends soon`, `Hello ${d.name},`, [
        { p: `The free trial of the ${d.tier} plan of the workspace "${d.workspace}" ends at ${readableUtc(mail.data.trialEndsAt)}.` },
        { p: 'To keep the plan after that, make sure a card is saved; to stop, cancel before then:' },
        { link: d.billingUrl, label: 'Open billing' },
      ]);
    }
    case 'billing_back_to_free': {
      const over = mail.data.over;
      const why =
        mail.data.reason === 'canceled'
          ? `The ${d.tier} plan was cancelled and its paid period is over`
          : `The renewal of the ${d.tier} plan stayed unpaid past its grace period`;
      return render(brand, `${d.workspace} is back on the free plan of ${brand.product}`, `Hello ${d.name},`, [
        { p: `${why}: the workspace "${d.workspace}" is on the free plan now. Nothing was deleted.` },
        ...(over.length > 0
          ? [
              { p: `It uses more than the free plan allows: ${over.join('; ')}.` },
              { p: 'Your sites keep serving; deploys are paused (they answer 402 naming the limit) until the workspace fits the free plan or pays again.' },
            ]
          : [{ p: 'Everything it has fits the free plan, so deploys go on as before.' }]),
        { link: d.billingUrl, label: 'Choose a plan' },
      ]);
    }
  }
}

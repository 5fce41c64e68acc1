import { escapeHtml, type MailTemplate, renderMail } from './mail-templates';

const brand = { product: 'Acme Hosting', baseUrl: 'https://api.example.com' };
const all: MailTemplate[] = [
  { template: 'verify_email', data: { name: 'Ann', email: 'ann@example.com', link: 'https://api.example.com/app/verify-email?token=ev_x', change: false } },
  { template: 'email_changed', data: { name: 'Ann', oldEmail: 'ann@example.com', newEmail: 'ann@example.org' } },
  { template: 'password_reset', data: { name: 'Ann', link: 'https://api.example.com/app/reset-password?token=pr_x' } },
  { template: 'invitation', data: { workspace: 'Docs', inviter: 'Bob', role: 'admin', link: 'https://api.example.com/app/invitations', hasAccount: true } },
  {
    template: 'webhook_disabled',
    data: { name: 'Ann', url: 'https://hooks.example.org/in', reason: 'the endpoint answered 410 Gone', link: 'https://api.example.com/app/webhooks' },
  },
  ...billingMails(),
];

function billingMails(): MailTemplate[] {
  const base = { name: 'Ann', workspace: 'Docs', tier: 'pro', billingUrl: 'https://api.example.com/app/w/ws_1/billing' };
  return [
    { template: 'billing_payment_failed', data: { ...base, graceEndsAt: '2030-01-28T10:00:00.000Z' } },
    { template: 'billing_trial_ending', data: { ...base, trialEndsAt: '2030-01-23T10:00:00.000Z' } },
    { template: 'billing_back_to_free', data: { ...base, reason: 'grace_over', over: ['5 projects (the free plan allows 3)'] } },
    { template: 'billing_back_to_free', data: { ...base, reason: 'canceled', over: [] } },
  ];
}

describe('renderMail', () => {
  it.each(all)('$template: a subject, the same links in text and HTML, the product and its address, no images', (mail) => {
    const out = renderMail(brand, mail);
    expect(out.subject).toContain('Acme Hosting');
    expect(out.text).toContain('Acme Hosting · https://api.example.com');
    expect(out.html).toContain('Acme Hosting · https://api.example.com');
    for (const link of out.links) {
      expect(out.text).toContain(link);
      expect(out.html).toContain(`href="${escapeHtml(link)}"`);
    }
    expect(out.html).not.toMatch(/<img|<script|url\(/i);
  });

  it('escapes what people typed in the HTML part only', () => {
    const out = renderMail(brand, {
      template: 'invitation',
      data: { workspace: '<b>Docs</b>', inviter: 'Bob "x" & co', role: 'viewer', link: 'https://a.example/?a=1&b=2', hasAccount: false },
    });
    expect(out.text).toContain('"<b>Docs</b>"');
    expect(out.html).toContain('&lt;b&gt;Docs&lt;/b&gt;');
    expect(out.html).toContain('Bob &quot;x&quot; &amp; co');
    expect(out.html).toContain('href="https://a.example/?a=1&amp;b=2"');
    expect(out.html).not.toContain('<b>Docs</b>');
  });

  it('says a change of address is a change', () => {
    const out = renderMail(brand, { template: 'verify_email', data: { name: 'Ann', email: 'new@example.com', link: 'https://x/y', change: true } });
    expect(out.text).toContain('change the email address of your Acme Hosting account to new@example.com');
  });
});

describe('renderMail: notifications (issue 30)', () => {
  const footer = {
    workspace: 'Shop <team>',
    settingsUrl: 'https://api.example.com/app/account',
    unsubscribeUrl: 'https://api.example.com/notifications/unsubscribe?token=u1.a.b.digest.x',
  };
  const digest = (leads: number, submissions: number, more = 0) =>
    renderMail(brand, {
      template: 'notify_digest',
      data: {
        ...footer,
        name: 'Ann',
        leads: Array.from({ length: leads }, (_, i) => ({ projectSlug: 'shop', email: `v${i}@example.org` })),
        submissions: Array.from({ length: submissions }, () => ({
          projectSlug: 'shop',
          formName: 'contact',
          fields: [['message', '<script>x</script>'] as [string, string]],
        })),
        more,
        leadsUrl: 'https://api.example.com/app/w/ws_x/leads',
      },
    });

  it('every notification names its workspace and ends with its one-click unsubscribe link, in text and HTML', () => {
    const mails = [
      digest(1, 1),
      renderMail(brand, {
        template: 'notify_build_failed',
        data: {
          ...footer,
          name: 'Ann',
          projectSlug: 'shop',
          branch: 'main',
          commitSha: 'abcdef0123456789',
          error: 'exit 1',
          buildUrl: 'https://api.example.com/app/b',
        },
      }),
      renderMail(brand, {
        template: 'notify_domain_failed',
        data: { ...footer, name: 'Ann', projectSlug: 'shop', domain: 'www.shop.example', reason: 'no TXT' },
      }),
    ];
    for (const out of mails) {
      expect(out.subject).toContain('Shop <team>');
      expect(out.links).toContain(footer.unsubscribeUrl);
      expect(out.text).toContain(footer.unsubscribeUrl);
      expect(out.html).toContain(`href="${escapeHtml(footer.unsubscribeUrl)}"`);
      expect(out.html).not.toContain('<team>');
      expect(out.html).not.toMatch(/<img|<script/i);
    }
  });

  it('a digest counts what it lists and what it leaves out, and escapes what visitors typed', () => {
    expect(digest(1, 0).subject).toBe('1 new lead or form submission in Shop <team>');
    expect(digest(2, 1).text).toContain('2 new leads and 1 form submission in the workspace');
    const long = digest(50, 0, 7);
    expect(long.subject).toBe('57 new leads and form submissions in Shop <team>');
    expect(long.text).toContain('…and 7 more in the dashboard.');
    expect(digest(0, 1).html).toContain('message: &lt;script&gt;x&lt;/script&gt;');
  });

  it('billing: a failed renewal says until when the plan is kept and where to fix the card; back on free says what no longer fits', () => {
    const [failed, , overFree, fits] = billingMails().map((mail) => renderMail(brand, mail));
    expect(failed.text).toContain('keeps its pro plan until 2030-01-28 10:00 UTC');
    expect(failed.links).toEqual(['https://api.example.com/app/w/ws_1/billing']);
    expect(overFree.text).toContain('It uses more than the free plan allows: 5 projects (the free plan allows 3).');
    expect(overFree.text).toContain('Your sites keep serving; deploys are paused');
    expect(overFree.text).toContain('stayed unpaid past its grace period');
    expect(fits.text).toContain('Everything it has fits the free plan');
  });
});

describe('renderMail: usage alerts (issue 31)', () => {
  const mail = (percent: number, resetsAt: string | null, atLimit: string | null): MailTemplate => ({
    template: 'usage_threshold',
    data: {
      name: 'Ann',
      workspace: 'Docs <team>',
      what: 'bandwidth',
      used: '75 GB',
      limit: '100 GB',
      percent,
      plan: 'free',
      resetsAt,
      atLimit,
      billingUrl: 'https://api.example.com/app/w/ws_1/billing',
    },
  });

  it('says how much of which limit is used, when it starts again, and links the billing page', () => {
    const out = renderMail(brand, mail(75, '2030-02-01T00:00:00.000Z', null));
    expect(out.subject).toBe('Docs <team> has used 75 % of its bandwidth this month');
    expect(out.text).toContain('has used 75 GB of the 100 GB of bandwidth its free plan includes this month (75 %)');
    expect(out.text).toContain('The count starts again at 2030-02-01T00:00:00.000Z.');
    expect(out.links).toEqual(['https://api.example.com/app/w/ws_1/billing']);
    expect(out.html).toContain('Docs &lt;team&gt;');
  });

  it('at 100 % says what happens to the sites; storage has no monthly reset', () => {
    expect(renderMail(brand, mail(100, '2030-02-01T00:00:00.000Z', 'The spend cap is on: paused.')).text).toContain('The spend cap is on: paused.');
    const storage = renderMail(brand, mail(50, null, null));
    expect(storage.subject).toBe('Docs <team> has used 50 % of its bandwidth');
    expect(storage.text).not.toContain('starts again');
  });
});

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
];

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

import { AppConfig } from './app-config';
import { validateEnv } from './env.schema';
import { startupNotes } from './startup-notes';

const configOf = (env: Record<string, string>) => AppConfig.from(validateEnv(env));

describe('startupNotes', () => {
  it('names the dashboard on a fresh start, and the mail folder when SMTP_URL is unset', () => {
    expect(startupNotes(configOf({ DATA_DIR: '/srv/statichost' }))).toEqual([
      'dashboard: http://localhost:3000/app/',
      'mail: SMTP_URL is unset, so mail is written to /srv/statichost/mail/<id>.eml and its links are logged',
    ]);
  });

  it('follows the public address, and names the SMTP server without its credentials', () => {
    const config = configOf({
      PUBLIC_SCHEME: 'https',
      API_HOSTS: 'api.example.com',
      SITES_DOMAIN: 'sites.example.com',
      SMTP_URL: 'smtps://me:secret@mail.example.com:465',
    });
    const notes = startupNotes(config);
    expect(notes).toEqual(['dashboard: https://api.example.com/app/', 'mail: sent through smtps://mail.example.com:465 (SMTP_URL)']);
    expect(notes.join('\n')).not.toContain('secret');
  });
});

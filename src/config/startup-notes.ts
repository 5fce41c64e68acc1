import { resolve } from 'node:path';

import type { AppConfig } from './app-config';

/**
 * What the first screen of a start says besides "listening": where the dashboard is
 * (a newcomer's next step) and where mail goes, since without SMTP_URL the sign-up's
 * verification link is in a file or the log, not in anyone's inbox.
 */
export function startupNotes(config: AppConfig): string[] {
  const smtp = config.SMTP_URL ? new URL(config.SMTP_URL) : undefined;
  return [
    `dashboard: ${config.apiBaseUrl}/app/`,
    smtp
      ? `mail: sent through ${smtp.protocol}//${smtp.host} (SMTP_URL)`
      : `mail: SMTP_URL is unset, so mail is written to ${resolve(config.DATA_DIR, 'mail')}/<id>.eml and its links are logged`,
  ];
}

import { Client } from 'pg';

import { SITE_PAGE, TEMPLATE_SLUG } from '../../bench/sites-seed';
import type { TestApp } from './app';
import { createApiToken, registerUser, type UserSession } from './identity';
import { deploySite } from './sites';

/**
 * bench:sites' template site deployed through the API, and a database connection to copy it
 * with `seedSites`: how a test gets thousands of real sites in seconds (issue 35).
 */
export async function deploySeedTemplate(t: TestApp): Promise<{ db: Client; templateId: string; owner: UserSession }> {
  const owner = await registerUser(t);
  const token = (await createApiToken(t, owner, { scopes: ['deploy', 'read'] })).token;
  await deploySite(t, token, TEMPLATE_SLUG, [{ path: 'index.html', content: SITE_PAGE }], { ttl: 'forever' });
  const db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  const templateId = (await db.query<{ id: string }>('SELECT id FROM projects WHERE slug = $1', [TEMPLATE_SLUG])).rows[0].id;
  return { db, templateId, owner };
}

// The layers of src/ (issue 27), top first: a folder may import the folders below it,
// never one above it, and two folders never import each other. One list that both the
// lint rule (eslint.config.mjs) and `npm run import-graph` read, so what lint enforces
// and what the count measures cannot drift apart.
//
// Each layer is a list of folders, top first inside the layer too: `sites` may import
// `deployments` (listed after it), `deployments` may not import `sites`. A top-level file
// of src/ (app.module.ts, main.ts, app.factory.ts, error-codes.ts) is the '(root)' folder.
export const LAYERS = [
  // The composition root: the modules wired together, the HTTP app, the error catalog of all modules.
  { name: 'root', folders: ['(root)'] },
  // Entry points that only call into the features below.
  { name: 'edges', folders: ['dashboard', 'health', 'internal'] },
  // The features, each importing only those after it.
  {
    name: 'features',
    folders: [
      // Outgoing webhooks and mail notifications: they act on the events of every feature below (issue 30).
      'webhooks',
      'notifications',
      // Forge webhooks: start builds, drop preview aliases (issue 29).
      'hooks',
      'builds',
      'forges',
      'git',
      'sites',
      // Branch and pull-request preview aliases: the builds set them, the site router reads them.
      'previews',
      // Single sign-on over OIDC (issue 32): starts auth's sessions, seals with the leads keyring, checks DNS like domains.
      'sso',
      // Forms on hosted sites: the site router hands them POSTs; sealed with the leads keyring (issue 30).
      'forms',
      'leads',
      'gates',
      'analytics',
      'deploy-preflight',
      'deployments',
      'site-webhook',
      'domains',
      'auth',
      'access-tokens',
      'projects',
      'blobs',
      'billing',
      'workspaces',
      'quotas',
      'users',
    ],
  },
  // Infrastructure the features use: objects, mail, the outbox, metrics, the event bus (issue 30),
  // the audit log every feature writes to in its own transactions (issue 32).
  { name: 'infrastructure', folders: ['metrics', 'storage', 'mail', 'outbox', 'events', 'audit'] },
  // The route contract: who may call a route (@Access, the guard's pure rules, the role
  // scopes, auth's error catalog) and what it documents (@Endpoint, the OpenAPI builder,
  // which the root hands every module's codes).
  { name: 'contract', folders: ['openapi', 'access'] },
  // Values and identities every feature speaks in (TTL, slug, preview label, domain name,
  // email, principal, content encodings): they import no feature.
  { name: 'shared', folders: ['shared'] },
  // Generic helpers (errors, ids, time, pagination, logging, jobs), then the database and the configuration.
  { name: 'foundation', folders: ['common', 'database', 'config'] },
];

// Imports that point up on purpose, each with why. Keys are 'from -> to' folder pairs;
// a value lists the importing files (relative to src/) the exception is limited to.
export const ALLOWED_UPWARD = {
  // TypeORM needs every entity class in one list (the data source, migrations, tests all
  // build from it), so the database layer names each feature's entity files, and only there.
  'database -> *': ['database/entities.ts'],
};

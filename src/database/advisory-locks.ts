/**
 * Every PostgreSQL advisory lock id the service takes, in one place so no two uses
 * share one by accident. Any constants would do, but an id must never change: during
 * a rolling upgrade, old and new instances must still exclude each other.
 */
export const ADVISORY_LOCKS = {
  /** Lets one instance migrate while the others wait. */
  migrations: 7_461_002,
  /** One instance at a time runs the TTL sweep (it expires deployments). */
  ttlSweep: 7_461_004,
  /** One instance at a time re-checks custom domains. */
  domainRecheck: 7_461_008,
  /** One instance at a time sends the outbox. */
  outbox: 7_461_010,
  /** One instance at a time runs the analytics retention job. */
  analyticsRetention: 7_461_014,
  /** One instance at a time collects unreferenced blobs (BlobCollector). */
  blobCollection: 7_461_016,
  /** One instance at a time forgets old idempotency keys. */
  idempotencyPurge: 7_461_018,
  /** One instance at a time deletes the gates' spent attempt counters. */
  gateAttemptsPurge: 7_461_020,
  /** One instance at a time fails builds whose builder stopped responding, and forgets old builds (BuildSweeper). */
  buildSweep: 7_461_022,
  /** One instance at a time forgets forge webhook deliveries older than 30 days (GitDeliveriesPurge). */
  gitDeliveriesPurge: 7_461_030,
  /** One instance at a time sends the digests of new leads and form submissions (NotificationDigestJob). */
  notificationDigest: 7_461_034,
  /** One instance at a time forgets outgoing webhook deliveries older than 30 days (WebhookDeliveriesPurge). */
  webhookDeliveriesPurge: 7_461_044,
  /** One instance at a time reports bandwidth overage to the payment provider (OverageReporter, issue 31). */
  overageReport: 7_461_050,
  /** One instance at a time deletes audit-log entries past AUDIT_RETENTION_DAYS (AuditRetentionJob, issue 32). */
  auditRetention: 7_461_060,
  /** One instance at a time forgets expired refresh tokens and the sessions they leave empty (SessionsPurge, issue 32). */
  sessionsPurge: 7_461_062,
  /** Class id of the per-workspace lock that queues billing changes (the two-key form, apart from the one-key locks above). */
  billingClass: 0x42494c4c,
  /** Class id of the lock each running instance holds as its proof of life (InstanceLease; two-key form, the instance's id second). */
  instanceLeaseClass: 0x5354_4c01,
} as const;

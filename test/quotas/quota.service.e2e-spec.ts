import { DataSource } from 'typeorm';

import { ApiError } from '../../src/common/errors';
import { QuotaService } from '../../src/quotas/quota.service';
import { parseTtl } from '../../src/shared/ttl';
import { createProject, newTenant } from '../billing/billing-helpers';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The quota rules of QuotaService, called directly on the real service and its
 * repository against PostgreSQL, each in a transaction as the deploy runs them. Limits
 * are small (PLANS_JSON); every test has a workspace of its own.
 */
const PLANS = { free: { projects: 1, deploymentsPerMonth: 2, storageBytes: 100, maxFileBytes: null, maxTtl: '2d' } };

describe('QuotaService (PostgreSQL)', () => {
  let t: TestApp;
  let quotas: QuotaService;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: JSON.stringify(PLANS) } });
    quotas = t.app.get(QuotaService);
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t?.close());

  const blob = (char: string, size: number) => ({ sha256: char.repeat(64), size });

  /** A deploy's charge in its own transaction: a refusal rolls it back, like the deploy's. */
  const charge = (workspaceId: string, files: { sha256: string; size: number }[]) =>
    dataSource.transaction(async (m) => quotas.chargeDeployment(m, await quotas.lock(m, workspaceId), files));

  async function refusal(pending: Promise<unknown>): Promise<Record<string, unknown>> {
    try {
      await pending;
    } catch (err) {
      if (err instanceof ApiError) return { status: err.getStatus(), ...err.body() };
      throw err;
    }
    throw new Error('expected a quota refusal');
  }

  it('counts a deployment and its distinct new bytes; a blob already stored costs nothing again', async () => {
    const { workspaceId } = await newTenant(t);
    await charge(workspaceId, [blob('a', 30), blob('b', 20), blob('a', 30)]);
    expect(await quotas.usage(workspaceId)).toMatchObject({ deploymentsPerMonth: 1, storageBytes: 50 });

    expect(await quotas.newBytes(workspaceId, [blob('a', 30), blob('c', 40), blob('c', 40)])).toBe(40);
    await charge(workspaceId, [blob('a', 30), blob('c', 40)]);
    expect(await quotas.usage(workspaceId)).toMatchObject({ deploymentsPerMonth: 2, storageBytes: 90 });
  });

  it('refuses the deployment past the monthly limit with 402, and counts nothing of it', async () => {
    const { workspaceId } = await newTenant(t);
    await charge(workspaceId, [blob('d', 1)]);
    await charge(workspaceId, [blob('e', 1)]);
    expect(await refusal(charge(workspaceId, [blob('f', 1)]))).toMatchObject({
      status: 402,
      code: 'quota_exceeded',
      quota: 'deploymentsPerMonth',
      limit: 2,
      usage: 2,
    });
    expect(await quotas.usage(workspaceId)).toMatchObject({ deploymentsPerMonth: 2, storageBytes: 2 });
  });

  it('refuses files that would take storage past the limit, counting neither them nor the deployment', async () => {
    const { workspaceId } = await newTenant(t);
    await charge(workspaceId, [blob('1', 60)]);
    expect(await refusal(charge(workspaceId, [blob('1', 60), blob('2', 41)]))).toMatchObject({
      status: 402,
      code: 'quota_exceeded',
      quota: 'storageBytes',
      limit: 100,
    });
    expect(await quotas.usage(workspaceId)).toMatchObject({ deploymentsPerMonth: 1, storageBytes: 60 });
    // Exactly up to the limit is allowed.
    await charge(workspaceId, [blob('2', 40)]);
    expect(await quotas.usage(workspaceId)).toMatchObject({ deploymentsPerMonth: 2, storageBytes: 100 });
  });

  it('allows projects up to the plan, then 402', async () => {
    const tenant = await newTenant(t);
    await dataSource.transaction((m) => quotas.assertProjectSlot(m, tenant.workspaceId));
    await createProject(t, tenant, { name: 'only' }).expect(201);
    expect(await refusal(dataSource.transaction((m) => quotas.assertProjectSlot(m, tenant.workspaceId)))).toMatchObject({
      status: 402,
      code: 'quota_exceeded',
      quota: 'projects',
      limit: 1,
      usage: 1,
    });
  });

  it('checks a TTL against the plan in force, and an unknown workspace is a 404', async () => {
    const { workspaceId } = await newTenant(t);
    await quotas.assertTtlAllowedFor(workspaceId, parseTtl('2d'), 'ttl');
    expect(await refusal(quotas.assertTtlAllowedFor(workspaceId, parseTtl('3d'), 'ttl'))).toMatchObject({ status: 402, code: 'quota_exceeded' });
    expect(await refusal(quotas.planOf('ws_0000000000000000000000000'))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('counts storage again from the manifests when deployments left the count', async () => {
    const { workspaceId } = await newTenant(t);
    await charge(workspaceId, [blob('9', 70)]);
    // What the trigger on deployments logs when one expires or is deleted: no deployment holds the blob any more.
    await dataSource.query('INSERT INTO workspace_storage_changes (workspace_id) VALUES ($1)', [workspaceId]);
    expect(await quotas.refreshStaleStorage()).toBeGreaterThanOrEqual(1);
    expect(await quotas.usage(workspaceId)).toMatchObject({ storageBytes: 0 });
  });
});

import { QueryClient } from '@tanstack/react-query';

import { deploymentKeys, projectKeys, queryKeysFactory, workspaceKeys } from './query-keys';

describe('queryKeysFactory', () => {
  const things = queryKeysFactory<[workspaceId: string]>('things');

  it('builds every key from the resource and its scope, lists and details apart', () => {
    expect(things.all('ws_1')).toEqual(['things', 'ws_1']);
    expect(things.lists('ws_1')).toEqual(['things', 'ws_1', 'list']);
    expect(things.list(['ws_1'], { page: 2, limit: 50 })).toEqual(['things', 'ws_1', 'list', { page: 2, limit: 50 }]);
    expect(things.details('ws_1')).toEqual(['things', 'ws_1', 'detail']);
    expect(things.detail(['ws_1'], 'th_1')).toEqual(['things', 'ws_1', 'detail', 'th_1', {}]);
    expect(workspaceKeys.list([])).toEqual(['workspaces', 'list', {}]);
    expect(deploymentKeys.all('ws_1', 'prj_1')).toEqual(['deployments', 'ws_1', 'prj_1']);
  });

  it('the same question is the same key (the projects page and the token form share "the first 100 projects")', () => {
    expect(projectKeys.list(['ws_1'], { page: 1, limit: 100 })).toEqual(projectKeys.list(['ws_1'], { limit: 100, page: 1 }));
    const client = new QueryClient();
    client.setQueryData(projectKeys.list(['ws_1'], { page: 1, limit: 100 }), 'cached');
    expect(client.getQueryData(projectKeys.list(['ws_1'], { limit: 100, page: 1 }))).toBe('cached');
  });

  it('invalidating all(scope) reaches every list and detail of that scope, and nothing of another workspace or project', async () => {
    const client = new QueryClient();
    const keys = {
      list: projectKeys.list(['ws_1'], { page: 1, limit: 100 }),
      page2: projectKeys.list(['ws_1'], { page: 2, limit: 100 }),
      detail: projectKeys.detail(['ws_1'], 'prj_1'),
      otherWorkspace: projectKeys.list(['ws_2'], { page: 1, limit: 100 }),
      deployments: deploymentKeys.list(['ws_1', 'prj_1'], { page: 1, limit: 20 }),
      otherProject: deploymentKeys.list(['ws_1', 'prj_2'], { page: 1, limit: 20 }),
    };
    for (const key of Object.values(keys)) client.setQueryData(key, 'data');
    await client.invalidateQueries({ queryKey: projectKeys.all('ws_1') });
    await client.invalidateQueries({ queryKey: deploymentKeys.all('ws_1', 'prj_1') });
    const invalidated = Object.fromEntries(Object.entries(keys).map(([name, key]) => [name, client.getQueryState(key)?.isInvalidated]));
    expect(invalidated).toEqual({ list: true, page2: true, detail: true, otherWorkspace: false, deployments: true, otherProject: false });
  });
});

import { describeDeployments } from './deployments.suite';

describeDeployments('local', async () => ({ env: {}, stop: async () => undefined }));

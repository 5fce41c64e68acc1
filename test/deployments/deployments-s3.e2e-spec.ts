import { startS3Server } from '../helpers/s3';
import { describeDeployments } from './deployments.suite';

describeDeployments('s3', async () => {
  const s3 = await startS3Server();
  return { env: s3.env, stop: () => s3.stop() };
});

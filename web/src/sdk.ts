/**
 * Everything the dashboard takes from the SDK, in one file: the generated API types and
 * the digest-first deploy's Node-free rules. The SDK may move (a package of its own);
 * only the paths below follow it.
 */
export {
  DEPLOY_ROUNDS,
  type DigestDeploySteps,
  type DigestFile,
  INLINE_BYTES,
  INLINE_MAX_FILE,
  type ManifestEntry,
  mapLimit,
  pickInline,
  runDigestDeploy,
} from '../../packages/sdk/digest-protocol';
export type { components, paths } from '../../packages/sdk/generated/schema';

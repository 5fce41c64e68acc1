/** The cache tags of site answers (Cache-Tag / Surrogate-Key) and of purge calls. */
export const projectCacheTag = (projectId: string) => `statichost-project-${projectId}`;
export const deploymentCacheTag = (deploymentId: string) => `statichost-deployment-${deploymentId}`;

/** Every migration, oldest first. `npm run migration:generate` writes new ones beside this file: add them here. */
import { Identity1763770000000 } from './1763770000000-Identity';
import { ProjectsDeployments1763770001000 } from './1763770001000-ProjectsDeployments';
import { GateRateLimits1763770002000 } from './1763770002000-GateRateLimits';

export const MIGRATIONS: Function[] = [Identity1763770000000, ProjectsDeployments1763770001000, GateRateLimits1763770002000];

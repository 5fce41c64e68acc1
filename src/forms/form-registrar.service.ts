import { Injectable, OnModuleInit } from '@nestjs/common';

import { EventBus } from '../events/event-bus';
import { FormIntakeRepository } from './form-intake.repository';

/**
 * Registers a deployment's declared forms as the project's forms (issue 30) when the
 * deployment is created, in the deploy's own transaction (the deployment.created event):
 * `GET /projects/:projectId/forms` lists a form from its first deploy, before any submission.
 */
@Injectable()
export class FormRegistrar implements OnModuleInit {
  constructor(
    private readonly events: EventBus,
    private readonly rows: FormIntakeRepository,
  ) {}

  onModuleInit(): void {
    this.events.listen(
      async (_reader, event) => {
        if (event.type !== 'deployment.created') return undefined;
        const { deploymentId } = event.data;
        return async (m) => void (await this.rows.registerDeclared(m, deploymentId));
      },
      (type) => (type === 'deployment.created' ? 'true' : 'false'),
    );
  }
}

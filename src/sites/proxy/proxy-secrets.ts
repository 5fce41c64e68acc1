/** The deployment a signed proxy rule is served from. */
export interface SigningDeployment {
  projectId: string;
  deploymentId: string;
  /** Served at a preview host (its own address, a branch's or pull request's alias): the variables for `preview`, not `production`. */
  preview: boolean;
}

/**
 * The values `Sign=NAME` proxy rules sign with: the project's build environment variables
 * (the git module owns them, sealed), for the deployment serving the rule. The builds
 * module provides this port (src/builds/build-proxy-secrets.ts): it sits above sites/ in
 * the layers, and it knows which deployments were built from a fork's pull request.
 */
export abstract class ProxySecrets {
  /**
   * The opened value of the project's variable `name` for `served`, or null: the project
   * has none of that name for the deployment's target (production or preview), or the
   * deployment was built from a fork's pull request, whose code must not use the project's
   * secrets (its build never saw them, and a rule that signs would hand out what they sign).
   */
  abstract value(name: string, served: SigningDeployment): Promise<string | null>;
}

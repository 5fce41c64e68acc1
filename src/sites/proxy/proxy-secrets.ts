/**
 * The values `Sign=NAME` proxy rules sign with: the project's build environment variables
 * (the git module owns them, sealed; it sits above sites/ in the layers, so it provides
 * this port: src/git/git-proxy-secrets.ts).
 */
export abstract class ProxySecrets {
  /** The opened value of the project's variable `name`, or null when the project has none of that name. */
  abstract value(projectId: string, name: string): Promise<string | null>;
}

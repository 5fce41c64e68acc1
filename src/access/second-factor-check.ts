/**
 * A workspace's two-factor policy, checked by a service rather than the guard: for a route
 * whose workspace is known only from the data (removing a payment method names the
 * method, not its workspace), so the guard, which checks the policy of the workspace a
 * request names, cannot. Auth knows a user's second factors and binds this port
 * (SecondFactorCheckModule, global); the features that ask sit below auth in the layers.
 */
export abstract class SecondFactorCheck {
  /** Throws `two_factor_required` (403), naming `workspaceId`, unless `userId` has a second factor. */
  abstract require(workspaceId: string, userId: string): Promise<void>;
}

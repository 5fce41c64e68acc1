/**
 * The recent sign-in a person's session needs before it may create an API token: the port
 * access-tokens/ calls and src/auth binds (SessionsService). auth sits above access-tokens in
 * the layers (it imports this module), so the check reaches down through this class.
 */
export abstract class RecentSignIn {
  /** Throws 403 `reauthentication_required` unless the user proved who they are in this session lately. */
  abstract requireRecentSignIn(userId: string, sessionId: string | undefined, what: string): Promise<void>;
}

import { declareErrors } from '../common/errors';

export const workspacesError = declareErrors('workspaces', {
  already_member: 409,
  last_owner: 409,
});
export type WorkspacesErrorCode = keyof typeof workspacesError.codes;

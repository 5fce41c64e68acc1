import type { SealedColumns } from '../database/reseal-rows';
import { clientSecretAad } from './sso-rules';

/** The sealed OIDC client secrets, for `npm run leads:rotate`. */
export const SSO_SEALED_COLUMNS: SealedColumns = {
  what: 'SSO client secret',
  table: 'sso_connections',
  id: 'workspace_id',
  keyId: 'secret_key_id',
  nonce: 'secret_nonce',
  ciphertext: 'secret_ciphertext',
  aad: clientSecretAad,
};

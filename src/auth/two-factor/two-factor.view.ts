import { ApiProperty } from '@nestjs/swagger';

export const TWO_FACTOR_METHODS = ['totp', 'recovery_code', 'passkey'] as const;
export type TwoFactorMethod = (typeof TWO_FACTOR_METHODS)[number];

export class TotpStatusView {
  @ApiProperty()
  enabled: boolean;
  @ApiProperty({ type: String, nullable: true, example: '2025-01-01T00:00:00.000Z' })
  enabledAt: string | null;
}

/** GET /auth/2fa: the signed-in user's second factors. */
export class TwoFactorStatusView {
  @ApiProperty({ type: TotpStatusView })
  totp: TotpStatusView;
  @ApiProperty({ type: 'integer', description: 'Unused recovery codes (0 when TOTP is off)', example: 10 })
  recoveryCodesLeft: number;
  @ApiProperty({ type: 'integer', description: 'Registered passkeys', example: 0 })
  passkeys: number;
  @ApiProperty({
    enum: TWO_FACTOR_METHODS,
    isArray: true,
    description: 'What a sign-in of this account asks for after the password; empty: the password alone',
  })
  methods: TwoFactorMethod[];
}

export class TotpEnrolmentView {
  @ApiProperty({ description: 'The base32 secret, for typing into an authenticator app; shown only now', example: 'JBSWY3DPEHPK3PXP' })
  secret: string;
  @ApiProperty({ example: 'otpauth://totp/statichost:ann%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=statichost&algorithm=SHA1&digits=6&period=30' })
  otpauthUrl: string;
  @ApiProperty({ description: 'The otpauth URL as a QR code: a data:image/svg+xml;base64 URL', example: 'data:image/svg+xml;base64,PHN2Zy…' })
  qrCode: string;
}

export class RecoveryCodesView {
  @ApiProperty({ type: [String], description: 'Ten single-use codes, shown only now (stored hashed)', example: ['abcde-fghjk'] })
  recoveryCodes: string[];
}

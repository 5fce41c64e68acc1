import { ApiProperty } from '@nestjs/swagger';

export class BlobView {
  @ApiProperty({ example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', description: 'SHA-256 of the bytes, lowercase hex' })
  sha256: string;

  @ApiProperty({ type: 'integer', example: 5120, description: 'Size in bytes' })
  size: number;
}

import { NameField } from '../../common/dto-fields';

export class CreateWorkspaceDto {
  @NameField('Acme')
  name: string;
}

export class UpdateWorkspaceDto {
  @NameField('Acme Inc')
  name: string;
}

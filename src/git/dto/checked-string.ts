import { ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * A string field checked by one of ./../git-fields.ts's functions, the refusal worded
 * by it (`productionBranch: must not hold ".."`). Null and undefined are left to
 * @IsOptional / the field's own presence checks.
 */
export function CheckedString(name: string, problem: (value: string) => string | null): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => value == null || (typeof value === 'string' && problem(value) === null),
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property ?? 'value'} ${typeof args?.value === 'string' ? problem(args.value) : 'must be a string'}`,
    },
  });
}

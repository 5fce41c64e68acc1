import { applyDecorators, Delete, HttpCode, HttpStatus, type Type } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';

/** Documents a `{ data: [...], meta }` list of `model`. */
export function ApiPaginatedOk(model: Type<unknown>, description?: string) {
  return applyDecorators(
    ApiExtraModels(model),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['data', 'meta'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          meta: {
            type: 'object',
            required: ['total', 'page', 'limit', 'totalPages'],
            properties: {
              total: { type: 'integer' },
              page: { type: 'integer' },
              limit: { type: 'integer' },
              totalPages: { type: 'integer' },
            },
          },
        },
      },
    }),
  );
}

/** The workspace header a dashboard JWT sends (an API token never needs it). */
export const ApiWorkspaceHeader = () =>
  ApiHeader({
    name: 'X-Workspace-Id',
    required: false,
    description: "With a dashboard JWT: the workspace to act in (required). With an API token: optional, must be the token's own.",
  });

/** A controller of routes on projects, tagged `tag`: a bearer credential, and the workspace header only a JWT needs. */
export const ApiProjectRoutes = (tag: string) =>
  applyDecorators(
    ApiTags(tag),
    ApiBearerAuth('bearer'),
    ApiHeader({ name: 'X-Workspace-Id', required: false, description: 'Required with a JWT; not needed with an API token' }),
  );

/** A DELETE route: like every delete of the API it answers 204 with no body. */
export const DeleteRoute = (path: string, summary: string) =>
  applyDecorators(Delete(path), HttpCode(HttpStatus.NO_CONTENT), ApiOperation({ summary }), ApiNoContentResponse());

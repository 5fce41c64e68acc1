import 'reflect-metadata';

import { Controller, Get, Module, Post } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

import { routeAccess } from '../access/authorize';
import { declaredCodes } from '../error-codes';
import { Endpoint, OPERATION_CONTRACT } from './endpoint';
import { finishOpenApiDocument } from './openapi-document';

describe('@Endpoint: a route’s access and documented errors in one decorator', () => {
  class Routes {
    @Endpoint({ id: 'createThing', scopes: ['admin'], credential: 'token', errors: { 409: ['slug_taken'] } })
    create() {}
    @Endpoint({ id: 'ping', public: true })
    ping() {}
  }
  const reflector = new Reflector();

  it('declares the access the guard reads and the contract the document reads', () => {
    expect(routeAccess(reflector, Routes.prototype.create)).toMatchObject({ isPublic: false, kind: 'token', scopes: ['admin'], roles: [] });
    expect(reflector.get(OPERATION_CONTRACT, Routes.prototype.create)).toEqual({ id: 'createThing', errors: { 409: ['slug_taken'] } });
    expect(routeAccess(reflector, Routes.prototype.ping).isPublic).toBe(true);
    expect(reflector.get(OPERATION_CONTRACT, Routes.prototype.ping)).toEqual({ id: 'ping', errors: {} });
  });
});

describe('the OpenAPI document of routes with and without @Endpoint', () => {
  @Controller('things')
  class ThingsController {
    @Post()
    @Endpoint({ id: 'createThing', scopes: ['admin'], errors: { 409: ['slug_taken'] } })
    create() {}
  }
  @Controller('others')
  class UndeclaredController {
    @Get()
    list() {}
  }

  async function documentOf(controller: Function): Promise<OpenAPIObject> {
    @Module({ controllers: [controller as new () => unknown] })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false });
    try {
      return finishOpenApiDocument(SwaggerModule.createDocument(app, { openapi: '3.0.0', info: { title: 't', version: '1' } }), app, {
        codes: declaredCodes(),
      });
    } finally {
      await app.close();
    }
  }

  it('takes the operation’s id and domain errors from the route’s @Endpoint, beside those its access implies', async () => {
    const op = (await documentOf(ThingsController)).paths['/things']!.post!;
    expect(op.operationId).toBe('createThing');
    expect(op.description).toContain('scope `admin`');
    const codes = (status: string) =>
      (op.responses[status] as { content: Record<string, { schema: { allOf: { properties?: { code: { enum: string[] } } }[] } }> }).content['application/json']!
        .schema.allOf[1]!.properties!.code.enum;
    expect(codes('409')).toEqual(['slug_taken']);
    expect(codes('403')).toEqual(['insufficient_scope', 'not_a_member', 'two_factor_required', 'workspace_mismatch']);
  });

  it('is not built when a documented route declares no @Endpoint (it would get a derived id as its SDK name)', async () => {
    await expect(documentOf(UndeclaredController)).rejects.toThrow('OpenAPI: UndeclaredController_list (GET /others) declares no @Endpoint');
  });
});

import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';

/** One route of the running app and the handler Nest calls for it (where its decorators' metadata lives). */
export interface DiscoveredRoute {
  method: string;
  /** `/projects/:projectId`, as Express matches it. */
  path: string;
  handler: Function;
  controller: string;
}

/** Every route the real app serves, read from its controllers the way Nest's router does. */
export function discoverRoutes(app: NestExpressApplication): DiscoveredRoute[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const found: DiscoveredRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as Function | undefined;
    if (!controller || !wrapper.instance) continue;
    const base = [Reflect.getMetadata(PATH_METADATA, controller) ?? ''].flat() as string[];
    const prototype = Object.getPrototypeOf(wrapper.instance);
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as Function;
      const own = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (own === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      for (const prefix of base) {
        for (const path of [own].flat()) {
          const full = `/${[prefix, path]
            .map((p) => p.replace(/^\/+|\/+$/g, ''))
            .filter(Boolean)
            .join('/')}`;
          found.push({ method, path: full, handler, controller: controller.name });
        }
      }
    }
  }
  return found;
}

import { Injectable, type OnModuleInit } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PUBLIC_ROUTE, REQUIRED_SCOPES } from './access.decorators.js';

/**
 * Fails the start of the API when a route declares neither `@Public()` nor `@RequireScope(…)`:
 * a new route cannot slip through unguarded, and the author learns it at the first boot (every
 * e2e test boots the app), not from a 403 in production.
 */
@Injectable()
export class RouteDeclarations implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const undeclared = this.undeclaredRoutes();
    if (undeclared.length) {
      throw new Error(`Routes without an access declaration (@Public() or @RequireScope(...)): ${undeclared.join(', ')}`);
    }
  }

  undeclaredRoutes(): string[] {
    const undeclared: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      for (const name of this.scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as object;
        if (Reflect.getMetadata(METHOD_METADATA, handler) === undefined || Reflect.getMetadata(PATH_METADATA, handler) === undefined)
          continue;
        const targets = [handler as () => void, controller];
        const declared =
          this.reflector.getAllAndOverride(PUBLIC_ROUTE, targets) || this.reflector.getAllAndOverride(REQUIRED_SCOPES, targets);
        if (!declared) undeclared.push(`${controller.name}.${name}`);
      }
    }
    return undeclared;
  }
}

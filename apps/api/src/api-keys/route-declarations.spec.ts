import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Post } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { Public, RequireScope, SignedDelivery } from './access.decorators.js';
import { RouteDeclarations } from './route-declarations.js';

@Controller('open')
@Public()
class OpenController {
  @Get()
  look() {
    return 'ok';
  }
}

@Controller('hooks')
class SignedController {
  @Post(':id')
  @SignedDelivery()
  deliver() {
    return {};
  }
}

@Controller('things')
@RequireScope('read')
class ThingsController {
  @Get()
  list() {
    return [];
  }

  @Post()
  @RequireScope('write')
  create() {
    return {};
  }

  /** Not a route: never checked. */
  helper() {
    return 1;
  }
}

@Controller('forgotten')
class ForgottenController {
  @Get()
  declared() {
    return [];
  }

  @Post('more')
  undeclared() {
    return {};
  }
}

async function boot(...controllers: (new () => object)[]) {
  @Module({ imports: [DiscoveryModule], controllers, providers: [RouteDeclarations] })
  class TestModule {}
  const app = await NestFactory.create(TestModule, { logger: false, abortOnError: false });
  try {
    await app.init();
  } finally {
    await app.close();
  }
}

describe('RouteDeclarations', () => {
  it('lets an app start when every route is public, signed or names its scopes', async () => {
    await expect(boot(OpenController, SignedController, ThingsController)).resolves.toBeUndefined();
  });

  it('refuses to start while a route declares no access, naming each one', async () => {
    await expect(boot(ThingsController, ForgottenController)).rejects.toThrow(
      'Routes without an access declaration (@Public() or @RequireScope(...)): ForgottenController.declared, ForgottenController.undeclared',
    );
  });
});

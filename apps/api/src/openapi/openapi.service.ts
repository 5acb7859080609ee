import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Injectable, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { buildOpenApiDocument, routesOf, type DescribedRoute, type OpenApiDocument } from './openapi-document.js';

/** The version in the repository's package.json (found upwards from here: src and dist alike). */
export function packageVersion(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'mcpflow') return manifest.version ?? '0.0.0';
    } catch {
      // no package.json here: keep climbing
    }
    const parent = dirname(folder);
    if (parent === folder) return '0.0.0';
    folder = parent;
  }
}

/** Every controller the running application registered, in module order. */
export function controllersOf(modules: ModulesContainer): Type[] {
  const controllers = new Set<Type>();
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) if (wrapper.metatype) controllers.add(wrapper.metatype as Type);
  }
  return [...controllers];
}

/** The API's own OpenAPI document, built once from the routes Nest registered. */
@Injectable()
export class OpenApiService {
  private document?: OpenApiDocument;

  constructor(private readonly modules: ModulesContainer) {}

  routes(): DescribedRoute[] {
    return routesOf(controllersOf(this.modules));
  }

  get(): OpenApiDocument {
    this.document ??= buildOpenApiDocument(controllersOf(this.modules), packageVersion());
    return this.document;
  }
}

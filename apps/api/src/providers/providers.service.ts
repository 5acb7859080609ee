import { Injectable, Logger } from '@nestjs/common';
import { ProviderRepository, WorkflowRepository } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';
import { mapPage, type Page, type PageQuery } from '../common/pagination.js';
import { MASK, type CreateProviderBody, type UpdateProviderBody } from './dto/provider-requests.js';
import { providerView, type ProviderView } from './dto/provider-views.js';

/** The /providers use cases. Keys are sealed and opened in the repository only; logs name ids, never keys. */
@Injectable()
export class ProvidersService {
  private readonly logger = new Logger(ProvidersService.name);

  constructor(
    private readonly providers: ProviderRepository,
    private readonly workflows: WorkflowRepository,
  ) {}

  async create(body: CreateProviderBody): Promise<ProviderView> {
    const provider = await this.providers.create(body);
    this.logger.log({ providerId: provider.id, baseURL: provider.baseURL }, 'provider created');
    return providerView(provider);
  }

  async list(page: PageQuery): Promise<Page<ProviderView>> {
    return mapPage(await this.providers.page(page), providerView);
  }

  async get(id: string): Promise<ProviderView> {
    const provider = await this.providers.findById(id);
    if (!provider) throw new NotFoundError('Provider', id);
    return providerView(provider);
  }

  async update(id: string, body: UpdateProviderBody): Promise<ProviderView> {
    // The mask sent back (a client that PUTs what it GOT) keeps the stored key.
    const changes = body.apiKey === MASK ? { ...body, apiKey: undefined } : body;
    const provider = await this.providers.update(id, changes);
    if (!provider) throw new NotFoundError('Provider', id);
    this.logger.log({ providerId: id, changed: Object.keys(body) }, 'provider updated');
    return providerView(provider);
  }

  /** Refused (409 PROVIDER_IN_USE) while a live workflow's latest version uses the provider. */
  async remove(id: string): Promise<void> {
    if (!(await this.providers.findById(id))) throw new NotFoundError('Provider', id);
    const user = await this.workflows.findLiveReferencing({ providerId: id });
    if (user) {
      const which = `"${user.name}" (${user.workflowId})`;
      throw new ConflictError('PROVIDER_IN_USE', `Provider ${id} is used by the latest version of workflow ${which}`);
    }
    if (!(await this.providers.delete(id))) throw new NotFoundError('Provider', id);
    this.logger.log({ providerId: id }, 'provider deleted');
  }
}

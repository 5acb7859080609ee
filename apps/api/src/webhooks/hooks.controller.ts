import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SignedDelivery } from '../api-keys/access.decorators.js';
import { ApiRoute } from '../common/api-route.js';
import { ReceiveDelivery } from './receive-delivery.js';
import { webhookRoutes } from './webhooks.routes.js';

/** Deliveries of inbound webhooks: no API key, the signature (or token) is the credential. */
@Controller('hooks')
export class HooksController {
  constructor(private readonly receive: ReceiveDelivery) {}

  @Post(':webhookId')
  @ApiRoute(webhookRoutes.deliver)
  @SignedDelivery()
  @HttpCode(202)
  async deliver(@Param('webhookId') webhookId: string, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await this.receive.execute(webhookId, { raw, headers: req.headers, contentType: req.headers['content-type'] }, res);
    res.status(answer.statusCode);
    if (answer.replayed) res.setHeader('idempotent-replayed', 'true');
    return answer.body;
  }
}

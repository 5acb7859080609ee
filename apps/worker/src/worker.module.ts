import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ConfigModule, PersistenceModule, type AppConfig } from '#workflow';

/** The worker: no HTTP server; BullMQ consumers wired to the engine (processors/). */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({ pinoHttp: { level: config.logLevel } }),
        PersistenceModule.forRoot(config.mongoUrl),
      ],
      providers: [],
    };
  }
}

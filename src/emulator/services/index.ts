/** Every emulated service, registered on the one port. */
import type { ServiceFactory } from '../service.js';
import { createHostingService } from './hosting/index.js';
import { createEchoService } from './echo/index.js';
import { createProtocolService } from './protocol/index.js';
import { createMailboxService } from './mailbox/index.js';
import { createHealthService } from './health/index.js';

export const serviceFactories: ServiceFactory[] = [createHostingService, createEchoService, createProtocolService, createMailboxService, createHealthService];

/** The API's own Swagger 2.0 description, filled in with the emulator's values. */
import { Echo } from '../../../shared/constants.js';
import { EchoExtensions } from '../../../shared/echo.js';
import { METHOD_DEFINITIONS } from './gateway.js';
import type { EchoState, TokenDefinition } from './state.js';

const DEFINITION_NAMES: TokenDefinition[] = ['vendor_jwt', 'platform_default_service_account', 'service_account', 'vendor_id_token', 'app_platform_idp'];

function authInfoOperation(operationId: string, description: string, path: string) {
  return {
    get: {
      description,
      operationId,
      produces: ['application/json'],
      responses: { '200': { description: 'Authentication info.', schema: { $ref: '#/definitions/authInfoResponse' } } },
      security: METHOD_DEFINITIONS[path]!.map((d) => ({ [d]: [] })),
    },
  };
}

export function swaggerDocument(state: EchoState, baseUrl: string): Record<string, unknown> {
  const url = new URL(baseUrl);
  const securityDefinitions: Record<string, unknown> = {
    api_key: { type: 'apiKey', name: 'key', in: 'query' },
  };
  for (const name of DEFINITION_NAMES) {
    const d = state.definition(name);
    securityDefinitions[name] = {
      authorizationUrl: '',
      flow: 'implicit',
      type: 'oauth2',
      [EchoExtensions.issuer]: d.issuer,
      [EchoExtensions.jwksUri]: state.jwksUri(name),
      [EchoExtensions.audiences]: d.audiences.join(','),
    };
  }
  return {
    swagger: '2.0',
    info: { description: 'A simple echo API with API-key and JWT authentication (Lanyard emulator).', title: 'Echo API', version: Echo.apiVersion },
    host: url.host,
    consumes: ['application/json'],
    produces: ['application/json'],
    schemes: [url.protocol.replace(':', '')],
    paths: {
      [Echo.paths.echo]: {
        post: {
          description: 'Echo back a given message.',
          operationId: Echo.operations.echo,
          produces: ['application/json'],
          responses: { '200': { description: 'Echo', schema: { $ref: '#/definitions/echoMessage' } } },
          parameters: [{ description: 'Message to echo', in: 'body', name: 'message', required: true, schema: { $ref: '#/definitions/echoMessage' } }],
          security: [{ api_key: [] }],
        },
      },
      [Echo.paths.vendorJwt]: authInfoOperation(
        Echo.operations.vendorJwt,
        "Returns the requests' authentication information for service-account JWTs.",
        Echo.paths.vendorJwt,
      ),
      [Echo.paths.vendorIdToken]: authInfoOperation(
        Echo.operations.vendorIdToken,
        "Returns the requests' authentication information for identity-provider ID tokens.",
        Echo.paths.vendorIdToken,
      ),
      [Echo.paths.appPlatform]: authInfoOperation(
        Echo.operations.appPlatform,
        "Returns the requests' authentication information for app-platform identity tokens.",
        Echo.paths.appPlatform,
      ),
    },
    definitions: {
      echoMessage: { type: 'object', properties: { message: { type: 'string' } } },
      authInfoResponse: { properties: { id: { type: 'string' }, email: { type: 'string' } } },
    },
    securityDefinitions,
  };
}

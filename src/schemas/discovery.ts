import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';

export const HealthResponseSchema = Type.Object(
  {
    status: StringEnum(['ok', 'degraded']),
    version: Type.String(),
    database: StringEnum(['ok', 'unreachable']),
    reasons: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'HealthResponse', additionalProperties: false },
);
export type HealthResponse = Static<typeof HealthResponseSchema>;

const Link = Type.Object({ href: Type.String({ format: 'uri' }), type: Type.String() }, { additionalProperties: false });

export const ApiCatalogSchema = Type.Object(
  {
    linkset: Type.Array(
      Type.Object(
        {
          anchor: Type.String({ format: 'uri' }),
          'service-desc': Type.Array(Link),
          'service-doc': Type.Array(Link),
          'oauth-protected-resource': Type.Array(Link),
          status: Type.Array(Link),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'ApiCatalog', additionalProperties: false },
);

export const ProtectedResourceMetadataSchema = Type.Object(
  {
    resource: Type.String({ format: 'uri' }),
    authorization_servers: Type.Array(Type.String({ format: 'uri' })),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    service_documentation: Type.String({ format: 'uri' }),
    resource_documentation: Type.String({ format: 'uri' }),
    resource_name: Type.String(),
    resource_policy_uri: Type.String({ format: 'uri' }),
  },
  { $id: 'ProtectedResourceMetadata', additionalProperties: false },
);

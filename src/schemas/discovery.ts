import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Url } from './common.js';

export const HealthResponseSchema = Type.Object(
  {
    status: StringEnum(['ok', 'degraded']),
    version: Type.String({ maxLength: 64, pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+' }),
    database: StringEnum(['ok', 'unreachable']),
    reasons: Type.Optional(
      Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10, description: 'What is failing: the database, then each failing provider' }),
    ),
  },
  { $id: 'HealthResponse', additionalProperties: false },
);
export type HealthResponse = Static<typeof HealthResponseSchema>;

/** Discovery documents name a handful of fixed links. */
const FEW = 10;

const Link = Type.Object(
  { href: Url(), type: StringEnum(['application/openapi+json', 'application/json', 'text/html']) },
  { additionalProperties: false },
);
const Links = Type.Array(Link, { maxItems: FEW });

export const ApiCatalogSchema = Type.Object(
  {
    linkset: Type.Array(
      Type.Object(
        {
          anchor: Url(),
          'service-desc': Links,
          'service-doc': Links,
          'oauth-protected-resource': Links,
          status: Links,
        },
        { additionalProperties: false },
      ),
      { maxItems: FEW },
    ),
  },
  { $id: 'ApiCatalog', additionalProperties: false },
);

/** SPEC part 5: no OAuth, so the authorization servers, scopes and bearer methods are empty lists. */
const Empty = Type.Array(Type.String({ maxLength: 100 }), { maxItems: 0 });

export const ProtectedResourceMetadataSchema = Type.Object(
  {
    resource: Url(),
    authorization_servers: Type.Array(Url(), { maxItems: 0 }),
    scopes_supported: Empty,
    bearer_methods_supported: Empty,
    service_documentation: Url(),
    resource_documentation: Url(),
    resource_name: Type.String({ maxLength: 100 }),
    resource_policy_uri: Url(),
  },
  { $id: 'ProtectedResourceMetadata', additionalProperties: false },
);

// The API's version, named in the OpenAPI document and in GET /'s health
// answer; neither HTTP nor the services own it, so both import it from here.
export const API_VERSION = '1.0.0';

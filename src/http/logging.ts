// What a request looks like in the logs: no headers (cookies, signatures and
// secret tokens never get there) and no values of secret-looking query parameters.
import type { FastifyRequest } from 'fastify';

const SECRET_PARAM = /code|token|password|secret|key|signature/i;

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A malformed escape is logged as sent; it cannot be a known secret name anyway.
      }
      return eq >= 0 && SECRET_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      remoteAddress: request.ip,
    };
  },
};

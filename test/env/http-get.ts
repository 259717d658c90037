// A plain HTTP(S) GET for health probes on loopback, with optional client TLS material.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface TlsFiles {
  /** CA file to verify the server with; without it the server certificate is not verified. */
  ca?: string;
  cert?: string;
  key?: string;
}

export interface HttpResponse {
  status: number;
  body: string;
}

/** GET `url`; resolves with status and body, rejects on connection errors or after `timeoutMs`. */
export function httpGet(url: string, tls: TlsFiles = {}, timeoutMs = 2_000): Promise<HttpResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const tlsOptions = secure
    ? {
        ca: tls.ca ? readFileSync(tls.ca) : undefined,
        cert: tls.cert ? readFileSync(tls.cert) : undefined,
        key: tls.key ? readFileSync(tls.key) : undefined,
        rejectUnauthorized: tls.ca !== undefined,
      }
    : {};
  return new Promise((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      target,
      { ...tlsOptions, method: 'GET', timeout: timeoutMs, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}

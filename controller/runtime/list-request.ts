// One page of a LIST as the API server sends it (plain JSON), authenticated from the KubeConfig.
// The generated clients deserialize lists by kind, which differs between core types and custom resources;
// the informer lists raw and deserializes every object the same way as its watch events.
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** The raw JSON of a list page. */
export interface RawList {
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: ReadonlyArray<Record<string, unknown>>;
}

/** An API error answer, with the HTTP status as `statusCode` (what `apiStatus` reads). */
export class ListError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'ListError';
  }
}

/** GETs `path` with `query`; resolves the parsed JSON of a 200, rejects with ListError otherwise. */
export async function listPage(
  kubeConfig: KubeConfig,
  path: string,
  query: Record<string, string | undefined>,
  signal?: AbortSignal,
): Promise<RawList> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new Error('the KubeConfig has no current cluster');
  const url = new URL(server.replace(/\/$/, '') + path);
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) url.searchParams.set(name, value);
  const options: RequestOptions = { method: 'GET', headers: { accept: 'application/json' } };
  await kubeConfig.applyToHTTPSOptions(options);
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...options, signal }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          reject(new ListError(status, `GET ${url.pathname} answered ${status}: ${text.slice(0, 500)}`));
          return;
        }
        try {
          resolve(JSON.parse(text) as RawList);
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

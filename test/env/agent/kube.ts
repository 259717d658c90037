// Small helpers around @kubernetes/client-node 1.4 shared by the agent's parts.
import { type ApiException, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/** Request options for a JSON merge patch (the client does not pick a content type by itself). */
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** HTTP status of an API error, `undefined` for anything else. */
export function apiStatus(error: unknown): number | undefined {
  const code = (error as ApiException<unknown> | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

export function isNotFound(error: unknown): boolean {
  return apiStatus(error) === 404;
}

export function isConflict(error: unknown): boolean {
  return apiStatus(error) === 409;
}

export function errorMessage(error: unknown): string {
  const body = (error as { body?: unknown } | undefined)?.body;
  if (typeof body === 'string') {
    try {
      return (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      return body;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

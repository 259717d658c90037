// Endpoint URLs.

/** Throws unless `value` is an absolute http(s) URL. */
export function validateHttpUrl(prop: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(
      `'${prop}' must be an http:// or https:// URL such as http://minio.storage.svc:9000, got '${value}'`,
    );
  }
  return value;
}

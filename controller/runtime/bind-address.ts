// `--metrics-bind-address` / `--health-probe-bind-address` values, as controller-runtime takes them:
// `:8080` (every interface), `127.0.0.1:8080`, `[::1]:8080`, or `0` to disable the server.

export interface BindAddress {
  /** undefined = every interface. */
  readonly host: string | undefined;
  readonly port: number;
}

/** Parses a bind address; undefined means "disabled" (`0`). Throws naming the flag and the value. */
export function parseBindAddress(flag: string, value: string): BindAddress | undefined {
  if (value === '0') return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new Error(
      `'${flag}' must be '[host]:port' (e.g. ':8080', '127.0.0.1:8080') or '0' to disable, got '${value}'`,
    );
  }
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}

// One command of our image (`backup save`, `restore fetch`, ...) as a flag table with its encoder and decoder.
import { decodeFlags, encodeFlags, flagUsage } from './codec.js';
import type { FlagTable, FlagValues } from './flag-table.js';

export interface CliVerb<T extends FlagTable> {
  /** The words before the flags, e.g. `['backup', 'save']`. */
  readonly command: readonly string[];
  readonly flags: T;
  /** The flags that carry `values` (rules across flags checked first). */
  encode(values: FlagValues<T>): string[];
  /** `command` followed by the flags: a container's `args` for our image's entrypoint. */
  args(values: FlagValues<T>): string[];
  /** The options of the flags after `command`; throws a `FlagError` naming the flag, value and what is allowed. */
  decode(argv: readonly string[]): FlagValues<T>;
  /** `etcd-gitops <command> <flags>`, for usage messages. */
  readonly usage: string;
}

/** A verb; `check` enforces rules across flags (throws a `FlagError`) on both encode and decode. */
export function defineVerb<T extends FlagTable>(
  command: readonly string[],
  flags: T,
  check: (values: FlagValues<T>) => void = () => {},
): CliVerb<T> {
  const encode = (values: FlagValues<T>): string[] => {
    check(values);
    return encodeFlags(flags, values);
  };
  return {
    command,
    flags,
    usage: `etcd-gitops ${command.join(' ')} ${flagUsage(flags)}`,
    encode,
    args: (values) => [...command, ...encode(values)],
    decode: (argv) => {
      const values = decodeFlags(flags, argv);
      check(values);
      return values;
    },
  };
}

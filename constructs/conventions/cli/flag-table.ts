// A flag table: the one description of a command's flags, from which both the arguments the constructs (or the
// controller) emit and the parser the command runs are made. Types follow the table.

/** How a flag's value is written: `--name=value`, a bare `--name` (booleans), `--name=a,b` (lists). */
export type FlagKind = 'string' | 'boolean' | 'integer' | 'list';

/** A further grammar a string or list value must follow. */
export type FlagFormat = 'url' | 'duration' | 'positive-duration' | 'semver';

export interface FlagSpec {
  /** The flag without its leading `--`. */
  readonly name: string;
  readonly kind: FlagKind;
  /** Absent or empty is an error. @default false */
  readonly required?: boolean;
  /** The only values a string flag takes. @default - any */
  readonly allowed?: readonly string[];
  /** @default - none */
  readonly format?: FlagFormat;
  /** Smallest integer. @default 0 */
  readonly min?: number;
}

/** Option name → flag, in the order flags are emitted. */
export type FlagTable = { readonly [option: string]: FlagSpec };

type FlagValue<S extends FlagSpec> = S['kind'] extends 'boolean'
  ? boolean
  : S['kind'] extends 'integer'
    ? number
    : S['kind'] extends 'list'
      ? readonly string[]
      : S extends { readonly allowed: readonly (infer A)[] }
        ? A
        : string;

type RequiredOptions<T extends FlagTable> = {
  [K in keyof T]: T[K] extends { readonly required: true } ? K : never;
}[keyof T];

/** The options a table's flags carry: required flags as required properties, the others optional. */
export type FlagValues<T extends FlagTable> = {
  readonly [K in RequiredOptions<T>]: FlagValue<T[K]>;
} & {
  readonly [K in Exclude<keyof T, RequiredOptions<T>>]?: FlagValue<T[K]>;
};

/** A flag (or argument) that does not parse; `flag` is `--name` or the argument itself. */
export class FlagError extends Error {
  public constructor(
    public readonly flag: string,
    message: string,
  ) {
    super(message);
    this.name = 'FlagError';
  }
}

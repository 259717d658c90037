// The image CLI's arguments: `<image|group>... [--out DIR] [--tag REF]...`, parsed without side effects.
import { parseArgs } from 'node:util';
import type { BuildImagesOptions } from './build.js';
import { imageChoices, resolveImageNames } from './images.js';

export function usage(): string {
  return `usage: node build/image/cli.js <${imageChoices().replace(/, /g, '|')}>... [--out DIR] [--tag REF]...`;
}

/** Build options from command-line arguments; throws naming the bad argument. */
export function parseImageArgs(args: string[]): BuildImagesOptions {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { out: { type: 'string' }, tag: { type: 'string', multiple: true } },
  });
  const names = resolveImageNames(positionals);
  const tags = values.tag ?? [];
  if (tags.length > 0 && names.length !== 1) {
    throw new Error(
      `--tag names one image: give exactly one image, got ${positionals.join(' ')} (${names.join(', ')})`,
    );
  }
  return {
    which: positionals,
    ...(values.out ? { outDir: values.out } : {}),
    ...(tags.length > 0 ? { tags } : {}),
  };
}

// The files of secret, configMap, downwardAPI and projected volumes: which paths, contents and modes.
// Pure, so the kubelet's rules (items select and rename keys, modes default to 0644) are unit-tested.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import type { V1KeyToPath } from '@kubernetes/client-node';

export interface VolumeFile {
  /** Relative path inside the volume. */
  path: string;
  content: string;
  mode: number;
}

export const defaultFileMode = 0o644;

/** Files for a Secret's or ConfigMap's `data`: every key, or only `items` (each renamed to its `path`). */
export function keyFiles(
  data: Record<string, string>,
  items: V1KeyToPath[] | undefined,
  defaultMode: number | undefined,
  describe: string,
  optional: boolean | undefined,
): VolumeFile[] {
  const mode = defaultMode ?? defaultFileMode;
  if (!items || items.length === 0) {
    return Object.entries(data).map(([key, content]) => ({ path: key, content, mode }));
  }
  return items.flatMap((item) => {
    const content = data[item.key];
    if (content === undefined) {
      if (optional) return [];
      throw new Error(`configure volume: couldn't find key ${item.key} in ${describe}`);
    }
    return [{ path: item.path, content, mode: item.mode ?? mode }];
  });
}

/** Writes `files` under `dir`, refusing paths that leave it. */
export function writeVolumeFiles(dir: string, files: VolumeFile[]): void {
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    const relative = normalize(file.path);
    if (relative.startsWith('..') || relative.startsWith('/')) {
      throw new Error(`volume file path '${file.path}' must be relative and stay inside the volume`);
    }
    const target = join(dir, relative);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
    chmodSync(target, file.mode);
  }
}

// Durability helpers: a rename is only durable once the directory holding it is synced.
import { open, readdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Syncs every file and directory under `dir` (etcd's own writes included), then `dir` itself. */
export async function syncTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await syncTree(path);
    else if (entry.isFile()) await syncPath(path);
  }
  await syncPath(dir);
}

/** `rename(from, to)`, then sync the parent directory so the new name survives a crash. */
export async function durableRename(from: string, to: string): Promise<void> {
  await rename(from, to);
  await syncPath(dirname(to));
}

// Debian packages for the base layer: the version apt would install now (`apt-cache policy`), fetched as .deb
// files with `apt-get download` into a cache directory (nothing is installed on the build machine).
import { execFile } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DebianPackage {
  name: string;
  version: string;
}

/** The candidate version of each package in `apt-cache policy` output (`(none)` when apt has none). */
export function parseCandidates(policy: string): Map<string, string> {
  const candidates = new Map<string, string>();
  let current: string | undefined;
  for (const line of policy.split('\n')) {
    const header = /^(\S+):$/.exec(line);
    if (header) current = header[1];
    const candidate = /^\s+Candidate: (\S+)$/.exec(line);
    if (candidate && current) candidates.set(current, candidate[1] as string);
  }
  return candidates;
}

/** `name_version_` as `apt-get download` starts the file name (an epoch's `:` written `%3a`). */
export function debFilePrefix(pkg: DebianPackage): string {
  return `${pkg.name}_${pkg.version.replace(/:/g, '%3a')}_`;
}

/** The version apt would install of each of `names`, in the same order. */
export async function candidateVersions(names: string[]): Promise<DebianPackage[]> {
  const { stdout } = await run('apt-cache', ['policy', ...names]);
  const candidates = parseCandidates(stdout);
  const missing = names.filter((name) => !candidates.get(name) || candidates.get(name) === '(none)');
  if (missing.length > 0) {
    throw new Error(
      `apt has no candidate version of ${missing.join(', ')} (needed for the image base layer): run 'apt-get update'`,
    );
  }
  return names.map((name) => ({ name, version: candidates.get(name) as string }));
}

/** The .deb file of each package in `dir`, downloading those not there yet; same order as `packages`. */
export async function downloadDebs(packages: DebianPackage[], dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const find = (files: string[], pkg: DebianPackage) =>
    files.find((f) => f.startsWith(debFilePrefix(pkg)) && f.endsWith('.deb'));
  const present = await readdir(dir);
  const missing = packages.filter((pkg) => !find(present, pkg));
  if (missing.length > 0) {
    await run('apt-get', ['download', '-q', ...missing.map((p) => `${p.name}=${p.version}`)], { cwd: dir });
  }
  const files = await readdir(dir);
  return packages.map((pkg) => {
    const file = find(files, pkg);
    if (!file) throw new Error(`apt-get download left no .deb for ${pkg.name}=${pkg.version} in ${dir}`);
    return join(dir, file);
  });
}

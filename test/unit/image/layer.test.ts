// Layers: whatever the build machine's umask or file times, the same files give the same digest; entries are
// root's and not writable by others, except the directories given an owner and mode of their own.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { packLayer } from '../../../image/layer.js';

const temp = mkdtempSync(join(tmpdir(), 'image-layer-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const blobs = join(temp, 'blobs');

/** A small root: a group-writable file, an executable and a subdirectory. */
function makeRoot(name: string, fileMode: number): string {
  const root = mkdtempSync(join(temp, `${name}-`));
  mkdirSync(join(root, 'app/bin'), { recursive: true });
  writeFileSync(join(root, 'app/config.json'), '{}\n');
  chmodSync(join(root, 'app/config.json'), fileMode);
  writeFileSync(join(root, 'app/bin/run'), '#!/nodejs/bin/node\n');
  chmodSync(join(root, 'app/bin/run'), 0o775);
  return root;
}

/** `mode owner/group name` of every entry of a layer blob, as GNU tar lists it. */
function listing(digest: string): string[] {
  const tar = join(temp, `${digest.slice(7)}.tar`);
  writeFileSync(tar, gunzipSync(readFileSync(join(blobs, digest.slice(7)))));
  return execFileSync('tar', ['-tvf', tar, '--numeric-owner'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.split(/\s+/))
    .map((f) => `${f[0]} ${f[1]} ${f[5]}`);
}

describe('packLayer', () => {
  test('GIVEN the same files with different modes from the umask and different times WHEN packed THEN the digests are equal', async () => {
    // GIVEN
    const a = makeRoot('a', 0o664);
    const b = makeRoot('b', 0o644);
    utimesSync(join(b, 'app/config.json'), 1_000_000, 1_000_000);
    // WHEN
    const [la, lb] = [await packLayer(a, blobs, 'a'), await packLayer(b, blobs, 'b')];
    // THEN
    assert.equal(la.digest, lb.digest);
    assert.equal(la.diffId, lb.diffId);
    const blob = readFileSync(join(blobs, la.digest.slice(7)));
    assert.equal(la.digest, `sha256:${createHash('sha256').update(blob).digest('hex')}`);
    assert.equal(la.size, blob.length);
    assert.equal(la.diffId, `sha256:${createHash('sha256').update(gunzipSync(blob)).digest('hex')}`);
  });

  test('GIVEN a root made by mkdtemp (0700) WHEN packed THEN every entry is root-owned, readable by all and writable by root only', async () => {
    const layer = await packLayer(makeRoot('c', 0o666), blobs, 'c');
    assert.deepEqual(listing(layer.digest), [
      'drwxr-xr-x 0/0 ./',
      'drwxr-xr-x 0/0 ./app/',
      'drwxr-xr-x 0/0 ./app/bin/',
      '-rwxr-xr-x 0/0 ./app/bin/run',
      '-rw-r--r-- 0/0 ./app/config.json',
    ]);
  });

  test('GIVEN directories with their own owner and mode WHEN packed THEN they keep them and the rest stays root’s', async () => {
    const layer = await packLayer(makeRoot('d', 0o644), blobs, 'd', {
      directories: [
        { path: 'tmp', mode: 0o1777 },
        { path: '/home/nonroot/', mode: 0o755, uid: 65532, gid: 65532 },
      ],
    });
    const entries = listing(layer.digest);
    assert.ok(entries.includes('drwxrwxrwt 0/0 ./tmp/'), entries.join('\n'));
    assert.ok(entries.includes('drwxr-xr-x 65532/65532 ./home/nonroot/'), entries.join('\n'));
    assert.ok(entries.includes('drwxr-xr-x 0/0 ./home/'), entries.join('\n'));
    assert.equal(entries.filter((e) => e.endsWith(' ./tmp/')).length, 1);
  });

  test('fails when a directory with its own owner is not empty: the message names it', async () => {
    const root = makeRoot('e', 0o644);
    await assert.rejects(
      packLayer(root, blobs, 'e', { directories: [{ path: 'app', mode: 0o755, uid: 65532 }] }),
      /layer directory \/app must be empty .* has bin, config.json/,
    );
  });

  test('fails when a directory leaves the image: the message names the path', async () => {
    await assert.rejects(
      packLayer(makeRoot('f', 0o644), blobs, 'f', { directories: [{ path: '../etc', mode: 0o755 }] }),
      /a layer directory must be a plain path inside the image, got '..\/etc'/,
    );
  });
});

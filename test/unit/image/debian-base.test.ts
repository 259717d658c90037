// The Debian base layer's pure parts: the CA bundle as update-ca-certificates writes it, the users, and reading
// apt's candidate versions.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { caBundle, group, NONROOT, passwd } from '../../../image/debian-base.js';
import { debFilePrefix, parseCandidates } from '../../../image/debian-packages.js';

const temp = mkdtempSync(join(tmpdir(), 'image-debian-'));
after(() => rmSync(temp, { recursive: true, force: true }));

describe('caBundle', () => {
  test('GIVEN certificates in subdirectories, one without a final newline WHEN bundled THEN they come in path order, each ending in a newline', async () => {
    // GIVEN
    const dir = join(temp, 'ca');
    mkdirSync(join(dir, 'mozilla'), { recursive: true });
    mkdirSync(join(dir, 'local'), { recursive: true });
    writeFileSync(join(dir, 'mozilla/B_Root.crt'), 'B\n');
    writeFileSync(join(dir, 'mozilla/A_Root.crt'), 'A');
    writeFileSync(join(dir, 'local/Z.crt'), 'Z\n');
    writeFileSync(join(dir, 'mozilla/README'), 'not a certificate\n');
    // WHEN
    const bundle = await caBundle(dir);
    // THEN
    assert.equal(bundle, 'Z\nA\nB\n');
  });

  test('fails when the package left no certificate: the message names the directory', async () => {
    const dir = join(temp, 'empty');
    mkdirSync(dir);
    await assert.rejects(caBundle(dir), new RegExp(`left no certificate under ${dir}`));
  });
});

describe('users', () => {
  test('GIVEN the base layer THEN root is 0 and nonroot is 65532 with home /home/nonroot and no login shell', () => {
    assert.deepEqual(passwd.trim().split('\n'), [
      'root:x:0:0:root:/root:/sbin/nologin',
      'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin',
    ]);
    assert.deepEqual(group.trim().split('\n'), ['root:x:0:', 'nonroot:x:65532:']);
    assert.deepEqual(NONROOT, { uid: 65532, gid: 65532, home: '/home/nonroot' });
  });
});

describe('parseCandidates', () => {
  test('GIVEN apt-cache policy output for several packages THEN each has its candidate, (none) included', () => {
    const policy = [
      'libc6:',
      '  Installed: 2.36-9+deb12u14',
      '  Candidate: 2.36-9+deb12u14',
      '  Version table:',
      ' *** 2.36-9+deb12u14 500',
      '        500 http://deb.debian.org/debian bookworm/main amd64 Packages',
      'tzdata:',
      '  Installed: (none)',
      '  Candidate: 2026f-0+deb12u1',
      'nothing-here:',
      '  Installed: (none)',
      '  Candidate: (none)',
      '',
    ].join('\n');
    assert.deepEqual(
      [...parseCandidates(policy)],
      [
        ['libc6', '2.36-9+deb12u14'],
        ['tzdata', '2026f-0+deb12u1'],
        ['nothing-here', '(none)'],
      ],
    );
  });

  test('GIVEN a version with an epoch THEN the .deb file name has it as %3a', () => {
    assert.equal(debFilePrefix({ name: 'libfoo1', version: '1:2.0-3' }), 'libfoo1_1%3a2.0-3_');
  });
});

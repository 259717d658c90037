// build.sh names the test tools' cache directory by a key that test/env/binaries.ts computes again to find them: the
// two must agree, or every e2e file that starts Argo CD, Flux, cert-manager or CoreDNS misses its binary.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, testToolsKey } from '../../env/binaries.js';

describe('the test tools’ cache key', () => {
  it('GIVEN build.sh test-tools-key THEN it prints the key binaries.ts computes from versions.env and the mains', () => {
    const cache = mkdtempSync(join(tmpdir(), 'egt-key-'));
    try {
      const printed = execFileSync(
        'bash',
        [join(repoRoot, 'test/env/bin-build/build.sh'), 'test-tools-key'],
        {
          encoding: 'utf8',
          env: { ...process.env, ETCD_GITOPS_CACHE: cache },
        },
      ).trim();
      assert.match(printed, /^[0-9a-f]{12}$/);
      assert.equal(testToolsKey(), printed);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

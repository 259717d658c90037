// The soak reads the revision bump a restore applied from its seed's report (test/soak/restore-result.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { newestSeed, reportedBump } from '../../soak/restore-result.js';

const pod = (name: string, restore?: { exitCode: number; finishedAt?: string }): V1Pod => ({
  metadata: { name },
  status: {
    initContainerStatuses: restore
      ? [
          {
            name: 'restore',
            image: 'x',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: {
              terminated: {
                exitCode: restore.exitCode,
                ...(restore.finishedAt ? { finishedAt: new Date(restore.finishedAt) } : {}),
              },
            },
          },
        ]
      : [],
  },
});

describe('newestSeed', () => {
  it('GIVEN member Pods THEN the one whose restore succeeded last; none without a successful restore', () => {
    const pods = [
      pod('tls-0', { exitCode: 0, finishedAt: '2026-12-02T01:21:50Z' }),
      pod('tls-1'),
      pod('tls-3', { exitCode: 0, finishedAt: '2026-12-02T01:22:50Z' }),
      pod('tls-4', { exitCode: 3, finishedAt: '2026-12-02T01:23:50Z' }),
    ];
    assert.equal(newestSeed(pods), 'tls-3');
    assert.equal(
      newestSeed([pod('tls-1'), pod('tls-4', { exitCode: 3, finishedAt: '2026-12-02T01:23:50Z' })]),
      undefined,
    );
  });
});

describe('reportedBump', () => {
  it("GIVEN the command's JSON lines THEN the last revisionBump; none in other lines", () => {
    const log = [
      '{"level":30,"msg":"Verified backup","revision":"3000047532"}',
      'not json {',
      '{"level":30,"msg":"Restored the data dir from the backup","revisionBump":1000000114}',
    ].join('\n');
    assert.equal(reportedBump(log), 1_000_000_114n);
    assert.equal(reportedBump('{"msg":"Data dir already holds a member: nothing to restore"}'), undefined);
  });
});

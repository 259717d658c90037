// Table tests of the controller's version refusals (docs/design/rolling-update.md, "Refused, and where"): the version
// path checked against the lowest version the members run, which admission cannot see.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkSpec, checkVersion } from '../../../controller/etcdcluster/spec-checks.js';
import { describeAction } from '../../../controller/etcdcluster/status-progress.js';
import type { ClusterView, PodView } from '../../../controller/etcdcluster/types.js';
import { cluster, pod } from './fixtures.js';

interface Case {
  readonly given: string;
  /** spec.version */
  readonly version: string;
  /** status.currentVersion */
  readonly runningVersion?: string;
  /** The version annotation of each member Pod. */
  readonly pods: readonly (string | undefined)[];
  /** The refusal's `allowed`, or undefined when the version is carried out. */
  readonly allowed?: string;
}

const cases: Case[] = [
  { given: 'a new cluster with no Pods and no status', version: '3.6.16', pods: [] },
  { given: 'members on the spec version', version: '3.6.16', runningVersion: '3.6.16', pods: ['3.6.16'] },
  {
    given: 'a patch up below the minimum',
    version: '3.5.35',
    runningVersion: '3.5.20',
    pods: ['3.5.20', '3.5.20', '3.5.20'],
  },
  {
    given: 'one minor up from 3.5.26',
    version: '3.6.16',
    runningVersion: '3.5.26',
    pods: ['3.5.26', '3.5.26', '3.5.26'],
  },
  {
    given: 'a roll to 3.6 half done from 3.5.35',
    version: '3.6.16',
    runningVersion: '3.5.35',
    pods: ['3.6.16', '3.5.35', '3.5.35'],
  },
  {
    given: 'Pods without a version annotation and no status',
    version: '3.6.16',
    pods: [undefined, undefined, undefined],
  },
  {
    given: '3.6 from members on 3.5.20',
    version: '3.6.16',
    runningVersion: '3.5.20',
    pods: ['3.5.20', '3.5.20', '3.5.20'],
    allowed: "3.5.26 or newer first (etcd's minimum before 3.6; members run 3.5.20)",
  },
  {
    given: '3.6 while a roll to 3.5.35 from 3.5.20 is half done (the spec moved on before the Pods did)',
    version: '3.6.16',
    runningVersion: '3.5.20',
    pods: ['3.5.35', '3.5.35', '3.5.20'],
    allowed: "3.5.26 or newer first (etcd's minimum before 3.6; members run 3.5.20)",
  },
  {
    given: '3.6 while status says 3.5.35 but one Pod still runs 3.5.20',
    version: '3.6.16',
    runningVersion: '3.5.35',
    pods: ['3.5.35', '3.5.20', '3.5.35'],
    allowed: "3.5.26 or newer first (etcd's minimum before 3.6; members run 3.5.20)",
  },
  {
    given: '3.6 from members on 3.4.23 (two minors)',
    version: '3.6.16',
    runningVersion: '3.4.23',
    pods: ['3.4.23', '3.4.23', '3.4.23'],
    allowed: 'at most one minor version above 3.4.23 (members run 3.4.23; etcd upgrades one minor at a time)',
  },
  {
    given: '3.6 while a roll to 3.5.35 from 3.4.23 is half done',
    version: '3.6.16',
    runningVersion: '3.4.23',
    pods: ['3.5.35', '3.4.23', '3.5.35'],
    allowed: 'at most one minor version above 3.4.23 (members run 3.4.23; etcd upgrades one minor at a time)',
  },
  {
    given: 'the way back from a refused 3.6 while a roll to 3.5.35 from 3.5.20 is half done',
    version: '3.5.35',
    runningVersion: '3.5.20',
    pods: ['3.5.35', '3.5.35', '3.5.20'],
  },
  {
    given:
      'going back a minor while a member already runs 3.6 (a half-done upgrade; the status still says 3.5.35)',
    version: '3.5.35',
    runningVersion: '3.5.35',
    pods: ['3.6.16', '3.5.35', '3.5.35'],
    allowed: '3.6.0 or newer (a member runs 3.6.16; no rollback of a half-done upgrade)',
  },
  {
    given: 'a patch down while the roll to a higher patch is half done',
    version: '3.5.30',
    runningVersion: '3.5.20',
    pods: ['3.5.35', '3.5.20', '3.5.20'],
  },
  {
    given: 'a minor down',
    version: '3.5.35',
    runningVersion: '3.6.16',
    pods: ['3.6.16', '3.6.16', '3.6.16'],
    allowed: '3.6.16 or newer (members run 3.6.16; etcd does not support downgrades)',
  },
  {
    given: 'a patch down',
    version: '3.6.9',
    runningVersion: '3.6.16',
    pods: ['3.6.16', '3.6.16', '3.6.16'],
    allowed: '3.6.16 or newer (members run 3.6.16; etcd does not support downgrades)',
  },
  {
    given: 'a version that is not X.Y.Z',
    version: 'v3.6.16',
    pods: ['3.6.16'],
    allowed: 'a version X.Y.Z from 3.4.x to 3.6.x',
  },
  { given: 'an unsupported minor', version: '3.7.0', pods: ['3.6.16'], allowed: '3.4.x to 3.6.x' },
];

function input(c: Case): { cluster: ClusterView; pods: PodView[] } {
  return {
    cluster: cluster({ version: c.version, runningVersion: c.runningVersion }),
    pods: c.pods.map((version, i) => pod(i, { version })),
  };
}

describe('checkVersion: the version path against the members', () => {
  for (const c of cases) {
    const then = c.allowed === undefined ? 'THEN it is carried out' : `THEN it is refused: ${c.allowed}`;
    it(`GIVEN ${c.given} WHEN spec.version is ${c.version} ${then}`, () => {
      const { cluster, pods } = input(c);
      const refusal = checkVersion(cluster, pods);
      if (c.allowed === undefined) {
        assert.equal(refusal, undefined);
        return;
      }
      assert.deepEqual(refusal, {
        kind: 'Refuse',
        field: 'spec.version',
        value: c.version,
        allowed: c.allowed,
      });
    });
  }

  it('GIVEN the first 3.6 member of a roll crash-looping (etcd refused to start it) WHEN spec.version goes back to 3.5.35 THEN it is carried out: that member never ran 3.6', () => {
    const pods = [
      pod(0, { version: '3.6.16', crashLooping: true, running: false, ready: false }),
      pod(1, { version: '3.5.35' }),
      pod(2, { version: '3.5.35' }),
    ];
    assert.equal(checkVersion(cluster({ version: '3.5.35', runningVersion: '3.5.35' }), pods), undefined);
    // The same Pod running: a half-done upgrade, refused.
    const running = [pod(0, { version: '3.6.16' }), ...pods.slice(1)];
    assert.equal(
      checkVersion(cluster({ version: '3.5.35', runningVersion: '3.5.35' }), running)?.allowed,
      '3.6.0 or newer (a member runs 3.6.16; no rollback of a half-done upgrade)',
    );
  });

  it('GIVEN members on 3.5.20 WHEN spec.version is 3.6.16 THEN the condition message names field, value and what is allowed', () => {
    const refusal = checkSpec(
      cluster({ version: '3.6.16', runningVersion: '3.5.20' }),
      [0, 1, 2].map((i) => pod(i, { version: '3.5.20' })),
      [],
    );
    assert.ok(refusal);
    assert.equal(
      describeAction(refusal),
      "spec.version: 3.6.16 is not allowed; allowed: 3.5.26 or newer first (etcd's minimum before 3.6; members run 3.5.20)",
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { distObjects } from './dist-files.js';
import { podSpecOf, restrictedViolations } from './restricted.js';

describe('Pod Security restricted in dist/', () => {
  it('GIVEN dist/ WHEN every Pod template is checked THEN none violates restricted', () => {
    const workloads = distObjects().filter((o) => podSpecOf(o) !== undefined);
    assert.deepEqual(
      workloads.map((o) => o.kind).sort(),
      ['CronJob', 'CronJob', 'Deployment'],
      'expected the controller Deployment and the example backup and restore drill CronJobs',
    );
    for (const o of workloads) {
      assert.deepEqual(
        restrictedViolations(podSpecOf(o)!),
        [],
        `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`,
      );
    }
  });

  it('GIVEN dist/ THEN every namespace it creates enforces restricted', () => {
    const namespaces = distObjects().filter((o) => o.kind === 'Namespace');
    assert.ok(namespaces.length >= 2);
    for (const ns of namespaces) {
      assert.equal(
        ns.metadata.labels?.['pod-security.kubernetes.io/enforce'],
        'restricted',
        ns.metadata.name,
      );
    }
  });

  it('fails when a container keeps its capabilities, may escalate, runs as root or uses a hostPath', () => {
    const pod = {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      volumes: [{ name: 'host', hostPath: { path: '/' } }],
      containers: [{ name: 'c', securityContext: { runAsUser: 0 } }],
    };
    assert.deepEqual(restrictedViolations(pod), [
      'volume host: hostPath',
      'container c: allowPrivilegeEscalation != false',
      'container c: capabilities.drop lacks ALL',
      'container c: runAsUser 0',
    ]);
  });
});

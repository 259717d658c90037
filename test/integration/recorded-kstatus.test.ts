// Status replay, kstatus and Flux: every object of test/unit/gitops/fixtures/recorded/*.jsonl goes through the real
// kstatus (sigs.k8s.io/cli-utils, and Flux's fork that kustomize-controller runs for `wait: true`) and through
// Flux's CEL evaluator with the healthCheckExprs of docs/gitops/flux.yaml (test/env/bin-build/health-check);
// each stage must read as test/health/expectations.ts says, and no object is Current before the controller's
// first status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judge, toolVerdicts } from '../health/judge.js';
import { computeHealth, fluxHealthCheckExprs } from '../health/kstatus.js';
import { type RecordedObject, recordings } from '../health/recorded.js';

const recorded = recordings();

describe('recorded statuses through kstatus and Flux health checks', () => {
  for (const [file, recording] of recorded) {
    it(`GIVEN the ${recording.entries.length} objects of ${file} WHEN kstatus and Flux's CEL checks evaluate each THEN every stage reads as expected`, (t) => {
      const verdicts = toolVerdicts(recording);
      assert.deepEqual(verdicts.fluxKstatus, verdicts.kstatus, "Flux's fork of kstatus agrees with kstatus");
      const errors = verdicts.flux.filter((verdict) => verdict.startsWith('Error'));
      assert.deepEqual(errors, [], 'every Flux expression evaluates');
      const problems = judge(recording, { kstatus: verdicts.kstatus, flux: verdicts.flux });
      assert.deepEqual(problems, [], problems.join('\n'));
      const count = (all: string[]) => {
        const counts = new Map<string, number>();
        for (const verdict of all) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
        return [...counts].map(([verdict, n]) => `${verdict} ${n}`).join(', ');
      };
      t.diagnostic(`${file}: kstatus ${count(verdicts.kstatus)}; Flux ${count(verdicts.flux)}`);
    });
  }

  it('GIVEN each object as the API server showed it before the controller wrote a status THEN kstatus and Flux say InProgress; without the schema default kstatus would say Current', () => {
    const firsts = [...recorded.values()].flatMap((recording) =>
      recording.entries
        .map((entry) => entry.object)
        .filter((object) => object.status?.observedGeneration === 0 && !object.status.conditions),
    );
    assert.ok(
      firsts.some((object) => object.kind === 'EtcdCluster') &&
        firsts.some((object) => object.kind === 'EtcdRestore'),
      'the recordings hold new EtcdClusters and EtcdRestores as first seen',
    );
    for (const kind of ['EtcdCluster', 'EtcdRestore'] as const) {
      const objects = firsts.filter((object) => object.kind === kind);
      const health = computeHealth(objects, fluxHealthCheckExprs(kind));
      for (const [index, result] of health.entries()) {
        const name = objects[index]?.metadata.name;
        assert.equal(result.kstatus, 'InProgress', `${kind} ${name}: ${result.kstatusMessage}`);
        assert.equal(result.flux, 'InProgress', `${kind} ${name}: ${result.fluxError ?? ''}`);
      }
      const { status: _default, ...withoutStatus } = objects[0] as RecordedObject;
      assert.equal(computeHealth([withoutStatus])[0]?.kstatus, 'Current', 'kstatus takes no status for done');
    }
  });
});

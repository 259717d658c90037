// Status replay, Argo CD: every EtcdCluster and EtcdRestore object the controller wrote during the recorded e2e
// runs (fixtures/recorded/*.jsonl: a scale-up, member loss and quorum loss, a rolling change, a restore, pauses)
// goes through docs/gitops/health-*.lua under Lua 5.1; each stage must read as test/health/expectations.ts says.
// (kstatus and Flux's CEL checks replay the same objects in test/integration/recorded-kstatus.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectations } from '../../health/expectations.js';
import { argoVerdicts, judge } from '../../health/judge.js';
import { departures, patternRegExp, type Recording, recordings } from '../../health/recorded.js';

const recorded = recordings();

/** The scenarios the issue asks for, with the stages each must contain (objects recorded in them). */
const REQUIRED: Record<string, string[]> = {
  'scale-up': [
    'creating',
    'scaling-up',
    'member-pod-deleted',
    'spec-refused',
    'pausing',
    'paused-member-down',
  ],
  'member-loss': ['member-killed', 'member-data-lost', 'quorum-lost', 'paused-quorum-lost'],
  'node-loss': ['node-lost'],
  'rolling-update': ['rolling', 'roll-failing', 'roll-fixed'],
  restore: ['restores-refused', 'quorum-lost', 'restoring', 'seed-failing', 'seed-retrying'],
};

describe('recorded statuses through the Argo CD health checks', () => {
  it('GIVEN the committed recordings THEN each scenario is there with objects in each of its key stages', () => {
    const byScenario = new Map([...recorded.values()].map((recording) => [recording.scenario, recording]));
    for (const [scenario, stages] of Object.entries(REQUIRED)) {
      const recording = byScenario.get(scenario);
      assert.ok(recording, `no recording of ${scenario} in test/unit/gitops/fixtures/recorded`);
      for (const stage of stages) {
        assert.ok(
          recording.entries.some((entry) => entry.stage === stage),
          `${scenario}: no object recorded in stage ${stage}`,
        );
      }
    }
  });

  for (const [file, recording] of recorded) {
    it(`GIVEN the ${recording.entries.length} objects of ${file} (${recording.source}) WHEN Argo CD evaluates each THEN every stage reads as expected`, (t) => {
      const argo = argoVerdicts(recording);
      const problems = judge(recording, { argo });
      assert.deepEqual(problems, [], problems.join('\n'));
      const counts = new Map<string, number>();
      for (const verdict of argo) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
      t.diagnostic(`${file}: ${[...counts].map(([verdict, n]) => `${verdict} ${n}`).join(', ')}`);
    });
  }
});

describe('the replay check itself', () => {
  const object = (name: string, paused = false) => ({
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name, generation: 1 },
    spec: { paused },
  });
  const recording = (stages: string[]): Recording => ({
    scenario: 'test',
    source: 'here',
    recorded: '',
    stages: [...new Set(stages)],
    entries: stages.map((stage) => ({
      stage,
      stretch: [...new Set(stages)].indexOf(stage),
      object: object('a'),
    })),
  });
  const scenario = {
    'scaling-up': { EtcdCluster: { argo: 'Healthy* Progressing+ Healthy+', kstatus: '', flux: '' } },
  };

  it('GIVEN a pattern THEN it matches exactly the sequences it allows', () => {
    const re = patternRegExp('Healthy* Progressing+ (Healthy|Suspended)?');
    for (const ok of ['Progressing ', 'Healthy Progressing Progressing Suspended '])
      assert.ok(re.test(ok), ok);
    for (const bad of ['', 'Healthy ', 'Progressing Degraded ', 'Progressing Healthy Healthy '])
      assert.ok(!re.test(bad), bad);
  });

  it('fails when a stage shows a verdict its pattern does not allow (Degraded while scaling up)', () => {
    const rec = recording(['scaling-up', 'scaling-up', 'scaling-up']);
    assert.deepEqual(departures(rec, scenario, { argo: ['Progressing', 'Progressing', 'Healthy'] }), []);
    const [problem] = departures(rec, scenario, { argo: ['Progressing', 'Degraded', 'Healthy'] });
    assert.match(
      problem ?? '',
      /^stage scaling-up, EtcdCluster\/a, argo: expected Healthy\* Progressing\+ Healthy\+/,
    );
  });

  it('GIVEN a stage entered twice THEN each stretch is judged on its own', () => {
    const twice: Recording = {
      ...recording([]),
      stages: ['scaling-up', 'scaling-up'],
      entries: [0, 0, 1, 1].map((stretch) => ({ stage: 'scaling-up', stretch, object: object('a') })),
    };
    const verdicts = ['Progressing', 'Healthy', 'Progressing', 'Healthy'];
    assert.deepEqual(departures(twice, scenario, { argo: verdicts }), []);
    const merged = { ...twice, entries: twice.entries.map((entry) => ({ ...entry, stretch: 0 })) };
    assert.equal(departures(merged, scenario, { argo: verdicts }).length, 1, 'one stretch would not match');
  });

  it('fails when a stage or an object has no expectation, rather than skipping it', () => {
    assert.deepEqual(departures(recording(['unknown']), scenario, { argo: ['Healthy'] }), [
      'stage unknown: no expectations',
    ]);
    const other: Recording = {
      ...recording(['scaling-up']),
      entries: [{ stage: 'scaling-up', stretch: 0, object: { ...object('b'), kind: 'EtcdRestore' } }],
    };
    assert.deepEqual(departures(other, scenario, { argo: ['Healthy'] }), [
      'stage scaling-up: no expectation for EtcdRestore/b',
    ]);
  });

  it('GIVEN the expectations THEN every scenario recorded has them and every pattern parses', () => {
    for (const recording of recorded.values())
      assert.ok(expectations[recording.scenario], recording.scenario);
    for (const stages of Object.values(expectations))
      for (const objects of Object.values(stages))
        for (const readers of Object.values(objects))
          for (const pattern of Object.values(readers)) assert.ok(patternRegExp(pattern));
  });
});

// Status replay through Argo CD itself: every object of test/unit/gitops/fixtures/recorded/*.jsonl goes through Argo
// CD's health assessment at the pinned release (its settings manager parsing docs/gitops/argocd-cm.yaml, its Lua VM
// running our scripts; test/health/argocd-vm.ts). Each must read as Lua 5.1 reads it (status and message: a
// difference between the two VMs fails here) and every stage as test/health/expectations.ts says.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { argoVmAndLuaVerdicts, judge } from '../health/judge.js';
import { recordings } from '../health/recorded.js';

describe("recorded statuses through Argo CD's own health code", () => {
  for (const [file, recording] of recordings()) {
    it(`GIVEN the ${recording.entries.length} objects of ${file} WHEN Argo CD assesses each with the argocd-cm of the docs THEN it reads as Lua 5.1 does and every stage as expected`, (t) => {
      const { vm, lua } = argoVmAndLuaVerdicts(recording);
      const differences = vm.flatMap((health, index) =>
        health.status === lua[index]?.status && health.message === lua[index]?.message
          ? []
          : [`entry ${index}: Argo CD ${JSON.stringify(health)} vs Lua 5.1 ${JSON.stringify(lua[index])}`],
      );
      assert.deepEqual(differences, [], differences.slice(0, 10).join('\n'));
      const problems = judge(recording, { argo: vm.map((health) => health.status) });
      assert.deepEqual(problems, [], problems.join('\n'));
      const counts = new Map<string, number>();
      for (const { status } of vm) counts.set(status, (counts.get(status) ?? 0) + 1);
      t.diagnostic(`${file}: Argo CD ${[...counts].map(([s, n]) => `${s} ${n}`).join(', ')}`);
    });
  }
});

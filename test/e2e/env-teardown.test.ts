// The environment leaves nothing behind: no process of its process groups, no directory, whether it
// is stopped normally, its test throws, or the process holding it is terminated or killed.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { groupAlive } from '../env/cleanup.js';
import { startEnvironment } from '../env/environment.js';
import type { FixtureReport } from '../env/fixtures/env-in-a-test.js';
import { remainingCgroups } from '../env/nodes/cgroups.js';
import { processesMentioning } from '../env/process-scan.js';
import { waitFor } from '../env/wait.js';

// A URL relative to this module, so the test runner sees what the fixture runs (test/env/pending-builds.ts).
const fixture = fileURLToPath(new URL('../env/fixtures/env-in-a-test.js', import.meta.url));
const reportDir = mkdtempSync(join(tmpdir(), 'etcd-gitops-teardown-test-'));
const fixtures: ChildProcess[] = [];
after(() => {
  for (const child of fixtures)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(reportDir, { recursive: true, force: true });
});

function assertNothingLeft(report: FixtureReport): void {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  for (const dir of report.dirs) {
    assert.deepEqual(
      mounts.filter((line) => line.includes(dir)),
      [],
      `mounts under ${dir}`,
    );
  }
  assert.deepEqual(report.cgroupRoots.flatMap(remainingCgroups), [], 'cgroups of the nodes');
  assert.ok(report.pgids.length >= 5 && report.pgids.every((pgid) => pgid > 0), `pgids: ${report.pgids}`);
  assert.deepEqual(
    report.pgids.filter((pgid) => groupAlive(pgid)),
    [],
    'process groups still alive',
  );
  for (const dir of report.dirs) {
    assert.equal(existsSync(dir), false, `${dir} still exists`);
    assert.deepEqual(processesMentioning(dir), [], `processes still mention ${dir}`);
  }
}

/** Runs the fixture test file; resolves with its report once written and a promise of its exit. */
async function runFixture(mode: 'throw' | 'wait', name: string, nodes = 0) {
  const reportPath = join(reportDir, `${name}.json`);
  const goPath = join(reportDir, `${name}.go`);
  const child = spawn(process.execPath, [fixture], {
    env: {
      ...process.env,
      FIXTURE_MODE: mode,
      FIXTURE_REPORT: reportPath,
      FIXTURE_GO: goPath,
      FIXTURE_NODES: String(nodes),
    },
    stdio: 'ignore',
  });
  fixtures.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const report = await waitFor(
    () =>
      existsSync(reportPath) ? (JSON.parse(readFileSync(reportPath, 'utf8')) as FixtureReport) : undefined,
    {
      what: `the fixture (${mode}) to start its environment`,
      timeoutMs: 90_000,
      abortIf: () => (child.exitCode !== null ? `fixture exited with ${child.exitCode}` : undefined),
    },
  );
  for (const pgid of report.pgids)
    assert.ok(groupAlive(pgid), `process group ${pgid} should run before teardown`);
  writeFileSync(goPath, '');
  return { child, report, exited };
}

test('GIVEN a running environment with MinIO WHEN stop() THEN no process of it remains and its directories are gone', async () => {
  const env = await startEnvironment({ minio: true });
  const report: FixtureReport = {
    pgids: [...env.controlPlane.processes.map((p) => p.pid), env.minio?.process()?.pid ?? -1],
    dirs: [env.controlPlane.dir, env.minio?.dir ?? ''],
    cgroupRoots: [],
  };
  for (const pgid of report.pgids) assert.ok(groupAlive(pgid));
  await env.stop();
  assertNothingLeft(report);
});

test('GIVEN a test that starts an environment WHEN the test throws THEN its process exits failed and leaves nothing behind', async () => {
  const { report, exited } = await runFixture('throw', 'throw');
  const { code } = await exited;
  assert.equal(code, 1);
  assertNothingLeft(report);
});

test('GIVEN a process holding an environment WHEN it gets SIGTERM THEN it stops the environment and exits 143', async () => {
  const { child, report, exited } = await runFixture('wait', 'sigterm');
  child.kill('SIGTERM');
  const { code } = await exited;
  assert.equal(code, 143);
  assertNothingLeft(report);
});

test('GIVEN a process holding an environment WHEN it is SIGKILLed THEN the reaper kills the process groups and removes the directories', async () => {
  const { child, report, exited } = await runFixture('wait', 'sigkill');
  child.kill('SIGKILL');
  assert.equal((await exited).signal, 'SIGKILL');
  await waitFor(
    () => report.pgids.every((pgid) => !groupAlive(pgid)) && report.dirs.every((dir) => !existsSync(dir)),
    {
      what: 'the reaper to clean up after the killed process',
      timeoutMs: 30_000,
    },
  );
  assertNothingLeft(report);
});

test('GIVEN a process holding an environment with a node running a Pod WHEN it is SIGKILLed THEN the reaper also kills the containers and removes mounts, namespaces and cgroups', async () => {
  const { child, report, exited } = await runFixture('wait', 'sigkill-nodes', 1);
  assert.equal(report.cgroupRoots.length, 1);
  assert.notDeepEqual(report.cgroupRoots.flatMap(remainingCgroups), [], 'the node has cgroups while it runs');
  child.kill('SIGKILL');
  assert.equal((await exited).signal, 'SIGKILL');
  await waitFor(
    () =>
      report.pgids.every((pgid) => !groupAlive(pgid)) &&
      report.dirs.every((dir) => !existsSync(dir)) &&
      report.cgroupRoots.flatMap(remainingCgroups).length === 0,
    { what: 'the reaper to clean up after the killed process', timeoutMs: 60_000 },
  );
  assertNothingLeft(report);
});

#!/usr/bin/env node
// `npm test`: every check and every test layer, with most Go builds beside the tests instead of before them.
//   1. build.sh first, in the foreground: every Debian package and what the images need (etcd, the registry,
//      Prometheus and kube-state-metrics).
//   2. build.sh rest in the background, at the lowest CPU priority (nice 19): MinIO, Kubernetes, containerd,
//      kube-router, CoreDNS, then the tools only some test files start (Argo CD, Flux, cert-manager, health-check).
//      Its output goes to a log: its timeline is printed at the end, all of it if it failed.
//   3. lint, compile, the images, then scripts/run-tests.mjs, which starts each integration and e2e file once the
//      binaries it uses exist (test/env/pending-builds.ts), told where the build's state is by
//      ETCD_GITOPS_BUILD_STATE.
// On a cold machine the builds took 44 of 86 minutes one after another before the first test (2026-12-03), while
// the tests leave a quarter of the cores idle; a test waiting for a binary leaves its lane to the build.
// The run fails if any step, test or the background build fails; the build is stopped if the run ends first.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const buildScript = 'test/env/bin-build/build.sh';
const clock = () => new Date().toISOString().slice(11, 19);
const say = (message) => console.log(`[test ${clock()}] ${message}`);

/**
 * Runs a foreground step; a failed one ends the run (as `a && b` did). Asynchronous, so that the background build's
 * end is written to its state file while a step runs.
 */
async function step(command, args, options = {}) {
  say(`${command} ${args.join(' ')}`);
  const child = spawn(command, args, { stdio: 'inherit', ...options });
  const [code, signal] = await new Promise((resolve) => child.on('close', (...status) => resolve(status)));
  if (code !== 0) {
    say(`${command} ${args.join(' ')} failed (${signal ?? code})`);
    process.exit(1);
  }
}

await step('bash', [buildScript, 'first']);

const work = mkdtempSync(join(tmpdir(), 'egt-build-'));
const state = join(work, 'state');
const logFile = join(work, 'build.log');
writeFileSync(state, 'running\n');
const log = openSync(logFile, 'w');
say(`bash ${buildScript} rest, in the background (nice 19)`);
const build = spawn('nice', ['-n', '19', 'bash', buildScript, 'rest'], {
  stdio: ['ignore', log, log],
  detached: true,
});
closeSync(log);
const buildEnded = new Promise((resolve) =>
  build.on('close', (code, signal) => {
    const status = signal ?? String(code);
    writeFileSync(state, `${status}\n`);
    say(`the background build ended (${status})`);
    resolve(status);
  }),
);

/** On any exit: the build is stopped if it still runs (its whole process group), and its state and log removed. */
function cleanUp() {
  if (build.exitCode === null && build.signalCode === null) {
    try {
      process.kill(-build.pid, 'SIGTERM');
    } catch {}
  }
  rmSync(work, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

await step('npm', ['run', 'lint', '--silent']);
await step('npm', ['run', 'build', '--silent']);
await step('node', ['build/image/cli.js', 'all', '--store'], { stdio: ['ignore', 'ignore', 'inherit'] });

say('node scripts/run-tests.mjs');
const tests = spawn(process.execPath, ['scripts/run-tests.mjs', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, ETCD_GITOPS_BUILD_STATE: state },
});
const testsPassed = await new Promise((resolve) => tests.on('close', (code) => resolve(code === 0)));
const buildStatus = await buildEnded;
const buildLog = readFileSync(logFile, 'utf8');
if (buildStatus !== '0') {
  console.log(`\n✖ the background build (build.sh rest) failed (${buildStatus}); its output:\n${buildLog}`);
  process.exit(1);
}
// Its timeline: one "[build HH:MM:SS]" line per step.
console.log(
  `\nThe background build:\n${buildLog
    .split('\n')
    .filter((line) => line.startsWith('[build '))
    .join('\n')}`,
);
process.exit(testsPassed ? 0 : 1);

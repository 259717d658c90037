// `npm run env:up` / `env:down`: the CLI starts the environment (here with one real node) in the background,
// reports how to use it, and `down` leaves nothing behind.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { kubectl } from '../env/kubectl.js';
import { processAlive, processesMentioning } from '../env/process-scan.js';

const run = promisify(execFile);
// A URL relative to this module, so the test runner sees what the CLI runs (test/env/pending-builds.ts).
const cli = fileURLToPath(new URL('../env/cli.js', import.meta.url));
const parent = mkdtempSync(join(tmpdir(), 'egt-cli-'));
const stateDir = join(parent, 'env');
const env = { ...process.env, ETCD_GITOPS_ENV_DIR: stateDir };

after(async () => {
  await run(process.execPath, [cli, 'down'], { env }).catch(() => undefined);
  rmSync(parent, { recursive: true, force: true });
});

test('GIVEN no environment WHEN up, status, then down THEN it runs in the background, answers kubectl, and down removes every process and file', async () => {
  const up = await run(process.execPath, [cli, 'up', '--nodes=1'], { env });
  const kubeconfig = join(stateDir, 'kubeconfig');
  assert.match(up.stdout, new RegExp(`^export KUBECONFIG=${kubeconfig}$`, 'm'));
  assert.match(up.stdout, /Local Kubernetes v1\.34\.4 is running/);
  const daemonPid = Number(readFileSync(join(stateDir, 'daemon.pid'), 'utf8'));
  assert.ok(processAlive(daemonPid));
  assert.ok(processesMentioning(stateDir).length >= 5, 'daemon and control plane run from the state dir');

  const status = await run(process.execPath, [cli, 'status'], { env });
  assert.match(status.stdout, /\/readyz: ok/);
  const namespaces = await kubectl(kubeconfig, ['get', 'namespaces', '-o', 'name']);
  assert.match(namespaces.stdout, /^namespace\/kube-system$/m);
  const nodes = await kubectl(kubeconfig, ['get', 'nodes', '--no-headers']);
  assert.match(nodes.stdout, /^node-1\s+Ready\s/m);

  const down = await run(process.execPath, [cli, 'down'], { env });
  assert.match(down.stdout, /Stopped the local Kubernetes/);
  assert.equal(existsSync(stateDir), false);
  assert.deepEqual(processesMentioning(stateDir), []);
  assert.equal(processAlive(daemonPid), false, `daemon ${daemonPid} still runs`);
});

test('fails when status is asked with nothing running: exit code 3 and "not running"', async () => {
  await assert.rejects(
    run(process.execPath, [cli, 'status'], { env }),
    (error: { code: number; stdout: string }) => {
      assert.equal(error.code, 3);
      assert.match(error.stdout, /not running/);
      return true;
    },
  );
});

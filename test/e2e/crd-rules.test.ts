// The CRDs' schema and CEL rules, enforced by a real kube-apiserver of the target version: defaults, the
// odd-size rule, version format and the version path (no downgrade, one minor at a time, 3.5.26 before 3.6; from
// status.currentVersion when set, else the old spec), immutable fields, `kubectl scale` on the scale subresource,
// and the status default that keeps kstatus and Flux from calling a new object done before the controller wrote;
// and the bad-input catalog (admission/catalog.ts), each case's refusal printed with its test.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { etcdClusterCrd, etcdRestoreCrd } from '../../constructs/api/crds.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { kubectl } from '../env/kubectl.js';
import { computeHealth, fluxHealthCheckExprs } from '../health/kstatus.js';
import { admissionCatalog } from './admission/catalog.js';

const ns = 'crd-rules';

function cluster(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name, namespace: ns },
    spec,
  };
}

describe('EtcdCluster and EtcdRestore admission on a real API server', () => {
  let cp: ControlPlane;
  const run = (args: string[], input?: unknown) =>
    kubectl(cp.kubeconfigPath, args, {
      allowFailure: true,
      ...(input === undefined ? {} : { input: JSON.stringify(input) }),
    });
  const apply = (obj: unknown) => run(['apply', '--server-side', '--force-conflicts', '-f', '-'], obj);
  const get = async (name: string) =>
    JSON.parse((await run(['get', 'etcdcluster', name, '-n', ns, '-o', 'json'])).stdout);

  /** Applies `obj` and returns the API server's refusal; fails when it is accepted. */
  async function refused(obj: unknown): Promise<string> {
    const result = await apply(obj);
    assert.notEqual(result.code, 0, `expected a refusal, got: ${result.stdout}`);
    return result.stderr;
  }

  before(async () => {
    cp = await startControlPlane({ waitForControllers: false });
    await kubectl(cp.kubeconfigPath, ['apply', '--server-side', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [etcdClusterCrd(), etcdRestoreCrd()] }),
    });
    await kubectl(cp.kubeconfigPath, [
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/etcdclusters.etcd.gitops.dev',
      'crd/etcdrestores.etcd.gitops.dev',
    ]);
    await kubectl(cp.kubeconfigPath, ['create', 'namespace', ns]);
  });
  after(() => cp?.stop());

  test('GIVEN only a version WHEN created THEN the API server fills size 3, 1Gi storage and Retain policies', async () => {
    const created = await apply(cluster('defaults', { version: '3.6.16' }));
    assert.equal(created.code, 0, created.stderr);
    const { spec } = await get('defaults');
    assert.equal(spec.size, 3);
    assert.deepEqual(spec.storage, { size: '1Gi', ephemeral: false });
    assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, {
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    assert.deepEqual(spec.resources, { requests: { cpu: '100m', memory: '256Mi' } });
    assert.deepEqual(spec.autoCompaction, { mode: 'periodic', retention: '1h' });
  });

  test('fails when extraFlags names a flag the product sets or not a flag, or a retention does not fit its mode; each message names it', async () => {
    assert.match(
      await refused(cluster('owned', { version: '3.6.16', extraFlags: { 'data-dir': '/x' } })),
      /extraFlags: data-dir is set by the controller \(the member volume\) and cannot be passed as an extra flag/,
    );
    assert.match(
      await refused(cluster('quota-flag', { version: '3.6.16', extraFlags: { 'quota-backend-bytes': '1' } })),
      /extraFlags: quota-backend-bytes is set by spec\.quotaBackendBytes/,
    );
    assert.match(
      await refused(cluster('dashes', { version: '3.6.16', extraFlags: { '--snapshot-count': '1' } })),
      /extraFlags: --snapshot-count is not an etcd flag name/,
    );
    assert.match(
      await refused(
        cluster('rev', { version: '3.6.16', autoCompaction: { mode: 'revision', retention: '1h' } }),
      ),
      /autoCompaction.retention: 1h is not allowed in revision mode/,
    );
    assert.match(
      await refused(cluster('per', { version: '3.6.16', autoCompaction: { retention: 'hourly' } })),
      /autoCompaction.retention: hourly is not allowed in periodic mode/,
    );
    const accepted = await apply(
      cluster('backend', {
        version: '3.6.16',
        extraFlags: { 'snapshot-count': '50000' },
        autoCompaction: { mode: 'revision', retention: '10000' },
        quotaBackendBytes: '512Mi',
      }),
    );
    assert.equal(accepted.code, 0, accepted.stderr);
  });

  test('fails when size is even without allowEvenSize, and accepts it with the opt-in', async () => {
    assert.match(
      await refused(cluster('even', { version: '3.6.16', size: 4 })),
      /spec.size: Invalid value: .*size must be odd \(1, 3, 5, 7 or 9\) so the cluster keeps quorum through a member failure; set allowEvenSize: true/,
    );
    const allowed = await apply(cluster('even', { version: '3.6.16', size: 4, allowEvenSize: true }));
    assert.equal(allowed.code, 0, allowed.stderr);
  });

  test('fails when size is 0 or 10', async () => {
    assert.match(
      await refused(cluster('zero', { version: '3.6.16', size: 0 })),
      /spec.size: Invalid value: 0: .*greater than or equal to 1/,
    );
    assert.match(
      await refused(cluster('ten', { version: '3.6.16', size: 10 })),
      /spec.size: Invalid value: 10: .*less than or equal to 9/,
    );
  });

  test('GIVEN a 3.6.16 cluster WHEN its version goes up THEN it is accepted, and fails when it goes down', async () => {
    assert.equal((await apply(cluster('upgrade', { version: '3.6.16' }))).code, 0);
    assert.match(
      await refused(cluster('upgrade', { version: '3.5.35' })),
      /spec\.version: 3\.5\.35 is not allowed; allowed: 3\.6\.16 or newer \(was 3\.6\.16; etcd does not support downgrades\)/,
    );
    assert.match(
      await refused(cluster('upgrade', { version: '3.6.9' })),
      /spec\.version: 3\.6\.9 is not allowed; allowed: 3\.6\.16 or newer \(was 3\.6\.16;/,
    );
    const up = await apply(cluster('upgrade', { version: '3.6.17' }));
    assert.equal(up.code, 0, up.stderr);
  });

  test('GIVEN a 3.4.23 cluster WHEN it walks to 3.6.16 THEN two minors at once and 3.5 below 3.5.26 to 3.6 fail, each naming field, value and what is allowed', async () => {
    const step = async (version: string) => {
      const result = await apply(cluster('path', { version }));
      assert.equal(result.code, 0, `${version}: ${result.stderr}`);
    };
    await step('3.4.23');
    const skip = await refused(cluster('path', { version: '3.6.16' }));
    assert.match(
      skip,
      /spec\.version: 3\.6\.16 is not allowed; allowed: at most one minor version above 3\.4\.23 \(was 3\.4\.23; etcd upgrades one minor at a time\)/,
    );
    assert.doesNotMatch(skip, /3\.5\.26/, 'one refusal: the minimum patch does not apply from 3.4');
    await step('3.5.20');
    assert.match(
      await refused(cluster('path', { version: '3.6.16' })),
      /spec\.version: 3\.6\.16 is not allowed; allowed: 3\.5\.26 or newer first \(etcd's minimum before 3\.6; was 3\.5\.20\)/,
    );
    await step('3.5.35');
    await step('3.6.16');
    assert.match(
      await refused(cluster('path', { version: '3.5.35' })),
      /spec\.version: 3\.5\.35 is not allowed; allowed: 3\.6\.16 or newer \(was 3\.6\.16; etcd does not support downgrades\)/,
    );
    assert.equal((await get('path')).spec.version, '3.6.16');
  });

  test('GIVEN a 3.5.26 cluster WHEN it goes to 3.6.0 THEN it is accepted (exactly the minimum)', async () => {
    assert.equal((await apply(cluster('edge', { version: '3.5.26' }))).code, 0);
    const up = await apply(cluster('edge', { version: '3.6.0' }));
    assert.equal(up.code, 0, up.stderr);
  });

  /** Writes `status.currentVersion` through the status subresource, as the controller does. */
  async function membersRun(name: string, currentVersion: string): Promise<void> {
    const patched = await run([
      'patch',
      'etcdcluster',
      name,
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { currentVersion } }),
    ]);
    assert.equal(patched.code, 0, `status.currentVersion ${currentVersion}: ${patched.stderr}`);
    assert.equal((await get(name)).status.currentVersion, currentVersion);
  }
  const accepted = async (name: string, version: string) => {
    const result = await apply(cluster(name, { version }));
    assert.equal(result.code, 0, `${version}: ${result.stderr}`);
  };

  test('GIVEN status.currentVersion says the members run 3.5.20 WHEN spec.version moves THEN each step starts from 3.5.20, not from the old spec, and the refusal names it', async () => {
    await accepted('running', '3.5.20');
    await membersRun('running', '3.5.20');
    await accepted('running', '3.5.35');
    assert.match(
      await refused(cluster('running', { version: '3.6.16' })),
      /spec\.version: 3\.6\.16 is not allowed; allowed: 3\.5\.26 or newer first \(etcd's minimum before 3\.6; members run 3\.5\.20\)/,
    );
    assert.match(
      await refused(cluster('running', { version: '3.5.10' })),
      /spec\.version: 3\.5\.10 is not allowed; allowed: 3\.5\.20 or newer \(members run 3\.5\.20; etcd does not support downgrades\)/,
    );
    await accepted('running', '3.5.30'); // below the old spec, not below what the members run
    await accepted('running', '3.5.35');
    await membersRun('running', '3.5.35'); // the roll is done
    assert.match(
      await refused(cluster('running', { version: '3.5.30' })),
      /spec\.version: 3\.5\.30 is not allowed; allowed: 3\.5\.35 or newer \(members run 3\.5\.35; etcd does not support downgrades\)/,
    );
    await accepted('running', '3.6.16');
    // Admission cannot see the Pods: while the status says 3.5.35 it admits going back (the controller decides).
    await accepted('running', '3.5.35');
    assert.equal((await get('running')).spec.version, '3.5.35');
  });

  test('GIVEN a status write WHEN it says the members run more than spec.version THEN it is accepted (the version path rules check spec changes only)', async () => {
    await accepted('status-only', '3.5.30');
    await membersRun('status-only', '3.5.35');
    await membersRun('status-only', '3.6.16');
    const sized = await apply(cluster('status-only', { version: '3.5.30', size: 5 }));
    assert.equal(sized.code, 0, `another spec change with spec.version unchanged: ${sized.stderr}`);
  });

  test('GIVEN 3.5.20 → 3.5.35 → 3.6.16 admitted before the status knew what the members run WHEN the status says 3.5.20 THEN the way back to 3.5.35 is accepted', async () => {
    // The stuck case: the controller refuses 3.6.16 (a member runs 3.5.20) and a refused spec stops the roll.
    await accepted('stuck', '3.5.20');
    await accepted('stuck', '3.5.35');
    await accepted('stuck', '3.6.16'); // from the old spec: no status yet
    await membersRun('stuck', '3.5.20');
    await accepted('stuck', '3.5.35');
    assert.match(
      await refused(cluster('stuck', { version: '3.6.16' })),
      /spec\.version: 3\.6\.16 is not allowed; allowed: 3\.5\.26 or newer first \(etcd's minimum before 3\.6; members run 3\.5\.20\)/,
    );
    await membersRun('stuck', '3.5.35');
    await accepted('stuck', '3.6.16');
  });

  test('GIVEN 3.4.23 → 3.5.35 → 3.6.16 admitted before the status knew WHEN the status says 3.4.23 THEN the way back to 3.5.35 is accepted and 3.6.16 is refused naming 3.4.23', async () => {
    await accepted('stuck34', '3.4.23');
    await accepted('stuck34', '3.5.35');
    await accepted('stuck34', '3.6.16');
    await membersRun('stuck34', '3.4.23');
    assert.match(
      await refused(cluster('stuck34', { version: '3.4.22' })),
      /spec\.version: 3\.4\.22 is not allowed; allowed: 3\.4\.23 or newer \(members run 3\.4\.23; etcd does not support downgrades\)/,
    );
    await accepted('stuck34', '3.5.35');
    assert.match(
      await refused(cluster('stuck34', { version: '3.6.16' })),
      /spec\.version: 3\.6\.16 is not allowed; allowed: at most one minor version above 3\.4\.23 \(members run 3\.4\.23; etcd upgrades one minor at a time\)/,
    );
  });

  test('fails when the storage class, ephemeral storage or bootstrap source changes after creation', async () => {
    assert.equal(
      (await apply(cluster('immutable', { version: '3.6.16', storage: { storageClassName: 'fast' } }))).code,
      0,
    );
    assert.match(
      await refused(cluster('immutable', { version: '3.6.16', storage: { storageClassName: 'slow' } })),
      /storage.storageClassName is immutable/,
    );
    assert.match(
      await refused(
        cluster('immutable', { version: '3.6.16', storage: { storageClassName: 'fast', ephemeral: true } }),
      ),
      /storage.ephemeral is immutable/,
    );
    const backup = { bucket: 'etcd-backups', key: 'a.db', credentialsSecretName: 's3' };
    assert.match(
      await refused(
        cluster('immutable', {
          version: '3.6.16',
          storage: { storageClassName: 'fast' },
          bootstrap: { backup },
        }),
      ),
      /bootstrap is immutable/,
    );
  });

  test('fails when a backup location names both a key and a prefix', async () => {
    const backup = {
      bucket: 'etcd-backups',
      key: 'a.db',
      latestUnderPrefix: 'x/',
      credentialsSecretName: 's3',
    };
    assert.match(
      await refused(cluster('both', { version: '3.6.16', bootstrap: { backup } })),
      /set exactly one of key \(one backup\) or latestUnderPrefix/,
    );
  });

  test('GIVEN a cluster WHEN kubectl scale sets 5 replicas THEN spec.size is 5, and fails when scaled to an even size', async () => {
    assert.equal((await apply(cluster('scaled', { version: '3.6.16' }))).code, 0);
    const scaled = await run(['scale', 'etcdcluster/scaled', '-n', ns, '--replicas=5']);
    assert.equal(scaled.code, 0, scaled.stderr);
    assert.equal((await get('scaled')).spec.size, 5);
    const even = await run(['scale', 'etcd/scaled', '-n', ns, '--replicas=4']);
    assert.notEqual(even.code, 0);
    assert.match(even.stderr, /size must be odd/);
  });

  test('GIVEN an EtcdRestore WHEN its clusterName changes THEN it is refused', async () => {
    const restore = (clusterName: string) => ({
      apiVersion: 'etcd.gitops.dev/v1alpha1',
      kind: 'EtcdRestore',
      metadata: { name: 'r1', namespace: ns },
      spec: {
        clusterName,
        backup: { bucket: 'etcd-backups', latestUnderPrefix: 'x/', credentialsSecretName: 's3' },
      },
    });
    assert.equal((await apply(restore('main'))).code, 0);
    assert.match(await refused(restore('other')), /clusterName is immutable/);
  });

  test('GIVEN a new EtcdCluster and EtcdRestore nobody acted on THEN the API server shows status.observedGeneration 0, and kstatus and Flux say InProgress, not Current', async () => {
    assert.equal((await apply(cluster('unobserved', { version: '3.6.16' }))).code, 0);
    const restore = {
      apiVersion: 'etcd.gitops.dev/v1alpha1',
      kind: 'EtcdRestore',
      metadata: { name: 'unobserved', namespace: ns },
      spec: {
        clusterName: 'unobserved',
        backup: { bucket: 'etcd-backups', latestUnderPrefix: 'x/', credentialsSecretName: 's3' },
      },
    };
    assert.equal((await apply(restore)).code, 0);
    for (const kind of ['EtcdCluster', 'EtcdRestore'] as const) {
      const object = JSON.parse(
        (await run(['get', kind.toLowerCase(), 'unobserved', '-n', ns, '-o', 'json'])).stdout,
      );
      assert.deepEqual(object.status, { observedGeneration: 0 }, kind);
      assert.equal(object.metadata.generation, 1);
      const [health] = computeHealth([object], fluxHealthCheckExprs(kind));
      assert.equal(health?.kstatus, 'InProgress', `${kind}: ${health?.kstatusMessage}`);
      assert.equal(health?.fluxKstatus, 'InProgress', kind);
      assert.equal(health?.flux, 'InProgress', `${kind}: ${health?.fluxError ?? ''}`);
      // What the default prevents: without any status, kstatus takes the object for done.
      const { status: _status, ...bare } = object;
      assert.equal(computeHealth([bare])[0]?.kstatus, 'Current', kind);
    }
  });

  // The bad-input catalog (test/e2e/admission/catalog.ts): one test per case, its refusal printed.
  admissionCatalog.forEach((c, i) => {
    const named = c.value === undefined ? 'and its length limit' : ', the value and what is allowed';
    test(`catalog: GIVEN ${c.kind} with ${c.what} THEN it is refused naming ${c.field}${c.value === undefined ? ' ' : ''}${named}`, async (t) => {
      const object = (spec: Record<string, unknown>) => ({
        apiVersion: 'etcd.gitops.dev/v1alpha1',
        kind: c.kind,
        metadata: { name: c.name ?? `catalog-${i + 1}`, namespace: ns },
        spec,
      });
      if (c.before) {
        const accepted = await apply(object(c.before));
        assert.equal(accepted.code, 0, accepted.stderr);
      }
      const message = (await refused(object(c.spec))).trim();
      t.diagnostic(message);
      assert.ok(message.includes(c.field), `names the field ${c.field}`);
      if (c.value !== undefined) assert.ok(message.includes(c.value), `names the value ${c.value}`);
      assert.match(message, c.allowed);
    });
  });
});

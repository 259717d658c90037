// A real cert-manager in the environment (the TLS e2e): the CRDs of the pinned release and its controller, our build
// of cert-manager's own controllers (bin-build/cert-manager/main.go says which, and why the main is ours), run as a
// process in the environment namespace as on a control-plane host. It issues what the Certificates and Issuers in
// the API server ask for, as in a user's cluster. It presents the admin kubeconfig: cert-manager's permissions are
// not what the tests prove (ours are: the etcd-gitops controller runs under the shipped RBAC).
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { certManagerBinary, certManagerCrds } from './binaries.js';
import { type Environment, processPlace } from './environment.js';
import { type ManagedProcess, startProcess, whileRunning } from './process-group.js';
import { waitFor } from './wait.js';

const GROUP = 'cert-manager.io';
const VERSION = 'v1';

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The part of a Certificate's status the tests read. */
export interface CertificateStatus {
  readonly conditions?: Condition[];
  readonly revision?: number;
  readonly notAfter?: string;
}

export interface CertManager {
  readonly process: ManagedProcess;
  /** The Certificate's status (empty before cert-manager first writes it). */
  status(namespace: string, name: string): Promise<CertificateStatus>;
  /**
   * Waits until each named Certificate is Ready with a revision of at least `minRevision[name]` (default 1: issued
   * once); fails early with the controller's log if it exits, and with the Certificate's conditions on timeout.
   */
  ready(
    namespace: string,
    names: readonly string[],
    options?: { minRevision?: Readonly<Record<string, number>>; timeoutMs?: number },
  ): Promise<void>;
  /**
   * Asks cert-manager to issue the Certificate again now, as `cmctl renew` does: an `Issuing` condition with reason
   * `ManuallyTriggered` added to its status. Returns the revision it had (a renewal completes at revision + 1).
   */
  renew(namespace: string, name: string): Promise<number>;
  stop(): Promise<void>;
}

/** Applies cert-manager's CRDs and starts its controller; stopped by `stop()` or the environment's. */
export async function startCertManager(env: Environment, dir: string): Promise<CertManager> {
  await env.kubectl(['apply', '--server-side', ...certManagerCrds().flatMap((file) => ['-f', file])]);
  await env.kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    ...['certificates', 'certificaterequests', 'issuers', 'clusterissuers'].map(
      (plural) => `crd/${plural}.${GROUP}`,
    ),
  ]);
  const inside = processPlace(env);
  const process = env.controlPlane.adopt(
    startProcess({
      netns: inside.netns,
      name: 'cert-manager',
      command: certManagerBinary(),
      args: [`--kubeconfig=${env.kubeconfigPath}`],
      env: inside.env,
      logPath: join(dir, 'cert-manager.log'),
    }),
  );
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const abortIf = whileRunning(process);
  const status = async (namespace: string, name: string): Promise<CertificateStatus> => {
    const certificate = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'certificates',
      name,
    })) as { status?: CertificateStatus };
    return certificate.status ?? {};
  };
  const isReady = (s: CertificateStatus) =>
    s.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return {
    process,
    status,
    ready: async (namespace, names, options = {}) => {
      for (const name of names) {
        const minRevision = options.minRevision?.[name] ?? 1;
        await waitFor(
          async () => {
            const now = await status(namespace, name);
            if (isReady(now) && (now.revision ?? 0) >= minRevision) return true;
            // Named in the timeout message as the last error.
            throw new Error(`revision ${now.revision}, conditions ${JSON.stringify(now.conditions ?? [])}`);
          },
          {
            what: `Certificate ${namespace}/${name} Ready at revision ${minRevision} or later`,
            timeoutMs: options.timeoutMs ?? 60_000,
            intervalMs: 500,
            abortIf,
          },
        );
      }
    },
    renew: async (namespace, name) => {
      const revision = (await status(namespace, name)).revision ?? 0;
      const issuing: Condition & { lastTransitionTime: string } = {
        type: 'Issuing',
        status: 'True',
        reason: 'ManuallyTriggered',
        message: 'Certificate re-issuance manually triggered by the test',
        lastTransitionTime: new Date().toISOString(),
      };
      await env.kubectl([
        'patch',
        'certificate',
        name,
        '-n',
        namespace,
        '--subresource=status',
        '--type=json',
        '-p',
        JSON.stringify([{ op: 'add', path: '/status/conditions/-', value: issuing }]),
      ]);
      return revision;
    },
    stop: () => process.stop(),
  };
}

// Records every EtcdCluster and EtcdRestore object (of the kinds whose CRD is installed) of one namespace as the API server hands it out (a watch, through
// the controller's own informer), each with the stage the test was in when the object was written. The test calls
// `stage(label)` at points where it has already observed the state before (e.g. after waiting for Ready) and just
// before it acts; a stage begins at the API server's resourceVersion of that moment, so a write belongs to the
// stage in which the API server made it, whenever the watch delivered it. `stop()` waits until every object is seen
// at its latest resourceVersion and, when RECORD_STATUS=<dir> is set, writes <dir>/<scenario>.jsonl
// (test/health/recorded.ts has the format; the committed ones are test/unit/gitops/fixtures/recorded/).
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Informer } from '../../controller/runtime/informer.js';
import { listPage } from '../../controller/runtime/list-request.js';
import {
  collectionPath,
  EtcdClusterResource,
  EtcdRestoreResource,
  type ResourceType,
} from '../../controller/runtime/resources.js';
import type { Environment } from '../env/environment.js';
import { waitFor } from '../env/wait.js';
import {
  essence,
  type RecordedObject,
  type Recording,
  reduceObject,
  writeRecording,
} from '../health/recorded.js';

export interface StatusRecorder {
  /** Enters stage `label`: every write the API server makes from now on belongs to it. */
  stage(label: string): Promise<void>;
  /** Stops recording once every object was seen at its latest version; writes the file when RECORD_STATUS is set. */
  stop(): Promise<Recording>;
}

interface Seen {
  readonly resourceVersion: bigint;
  readonly object: RecordedObject;
}

const RESOURCES: readonly ResourceType[] = [EtcdClusterResource, EtcdRestoreResource];

export async function recordStatuses(
  env: Environment,
  options: { namespace: string; scenario: string; source: string; firstStage: string },
): Promise<StatusRecorder> {
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' });
  const seen: Seen[] = [];
  const last = new Map<string, string>();
  const boundaries: { resourceVersion: bigint; label: string }[] = [];
  const stages = [options.firstStage];
  // Only the kinds whose CRD the test installed (a list of one that is not installed answers 404).
  const installed: ResourceType[] = [];
  for (const resource of RESOURCES) {
    try {
      await listPage(env.kubeConfig, collectionPath(resource, options.namespace), { limit: '1' });
      installed.push(resource);
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
  }
  const informers = installed.map(
    (resource) =>
      new Informer<KubernetesObject>({
        kubeConfig: env.kubeConfig,
        resource,
        log,
        namespace: options.namespace,
      }),
  );
  for (const informer of informers) {
    informer.on((event, object) => {
      if (event === 'delete') return;
      const reduced = reduceObject(JSON.parse(JSON.stringify(object)) as RecordedObject);
      const key = `${reduced.kind}/${reduced.metadata.name}`;
      const now = essence(reduced);
      if (last.get(key) === now) return;
      last.set(key, now);
      seen.push({ resourceVersion: BigInt(reduced.metadata.resourceVersion ?? '0'), object: reduced });
    });
    informer.start();
  }
  await Promise.all(informers.map((informer) => informer.whenSynced()));

  /** The API server's resourceVersion now: that of a fresh (quorum) list. */
  const currentResourceVersion = async () => {
    const page = await listPage(env.kubeConfig, collectionPath(EtcdClusterResource, options.namespace), {
      limit: '1',
    });
    return BigInt(page.metadata?.resourceVersion ?? '0');
  };

  return {
    async stage(label) {
      boundaries.push({ resourceVersion: await currentResourceVersion(), label });
      stages.push(label);
    },
    async stop() {
      // Every object at its latest version, as a fresh list has it.
      for (const [index, resource] of installed.entries()) {
        const page = await listPage(env.kubeConfig, collectionPath(resource, options.namespace), {});
        for (const item of page.items ?? []) {
          const { name, resourceVersion } = (item as KubernetesObject).metadata ?? {};
          await waitFor(
            () =>
              informers[index]?.get(options.namespace, name ?? '')?.metadata?.resourceVersion ===
              resourceVersion,
            { what: `the recorder to see ${resource.kind} ${name} at ${resourceVersion}`, timeoutMs: 30_000 },
          );
        }
      }
      await Promise.all(informers.map((informer) => informer.stop()));
      const ordered = [...seen].sort((a, b) => (a.resourceVersion < b.resourceVersion ? -1 : 1));
      const recording: Recording = {
        scenario: options.scenario,
        source: options.source,
        recorded: new Date().toISOString(),
        stages,
        entries: ordered.map(({ resourceVersion, object }) => {
          // Boundary i opens stretch i + 1 (stretch 0 is the first stage).
          const stretch = boundaries.findLastIndex((b) => b.resourceVersion < resourceVersion) + 1;
          return { stage: stages[stretch] as string, stretch, object };
        }),
      };
      const dir = process.env.RECORD_STATUS;
      if (dir) writeRecording(join(dir, `${options.scenario}.jsonl`), recording);
      return recording;
    },
  };
}

// The fair floor of the Kubernetes restore rows (`npm run bench restore`): the same recovery done by a script on the
// same nodes, from the same state, as a person with kubectl and etcdctl would do it as fast as etcd allows. A
// 3-member cluster of our member Pods (byHand, membership-pods.ts) loses two members with their data; then the
// script deletes the third member's Pod and waits until it is gone, starts a seed from the same backup object (its
// PVC, and its Pod with our `restore fetch` init container), and grows it to 3 by `member add --learner`, Pod,
// `member promote`, one at a time. It ends when etcd answers with 3 started voters, as ours ends when the
// EtcdRestore is Completed (the controller decides that from the same answer). What ours costs beyond it is the
// controller's: verifying the backup before it takes the lock, and the passes between the steps.
import { memberSelectorString } from '../constructs/conventions/index.js';
import type { S3Location } from '../constructs/imports/etcd.gitops.dev.js';
import type { Environment } from '../test/env/environment.js';
import { waitFor } from '../test/env/wait.js';
import { createClusterHandle } from '../test/integration/helpers/membership-kube.js';
import { allVoters, byHand, POLL_MS, removeAll } from './membership-pods.js';

/** Seconds from the two members' loss to each step of the recovery by hand. */
export interface RestoreByHandSample {
  /** The third member's Pod gone. */
  readonly stopped: number;
  /** The seed answers with the restored data. */
  readonly seedReady: number;
  /** 3 started voters. */
  readonly completed: number;
}

const seconds = (start: number) => (performance.now() - start) / 1000;

/** `runs` recoveries by hand of a 3-member cluster named `name` from the backup at `location` (an exact key). */
export async function restoreByHand(
  env: Environment,
  namespace: string,
  name: string,
  version: string,
  location: S3Location,
  runs: number,
): Promise<RestoreByHandSample[]> {
  const hand = byHand(env, namespace, name, version);
  const samples: RestoreByHandSample[] = [];
  for (let run = 0; run < runs; run += 1) {
    // Its Services (removeAll deletes them with the rest).
    await createClusterHandle(env, namespace, name);
    try {
      await hand.startStatic(3);
      for (const index of [1, 2]) {
        await hand.core.deleteNamespacedPersistentVolumeClaim({
          namespace,
          name: `${hand.member(index)}-data`,
        });
        await hand.core.deleteNamespacedPod({ namespace, name: hand.member(index), gracePeriodSeconds: 0 });
      }
      const start = performance.now();
      await hand.core.deleteNamespacedPod({ namespace, name: hand.member(0) });
      await waitFor(
        async () =>
          (await hand.core.listNamespacedPod({ namespace, labelSelector: memberSelectorString(name) })).items
            .length === 0,
        { what: `the old member Pods of ${name} gone`, timeoutMs: 120_000, intervalMs: POLL_MS },
      );
      const stopped = seconds(start);
      // New member indexes, as ours names a restored cluster's members anew.
      await hand.seedFromBackup(3, location, `${name}-restored-${run}`);
      const seedReady = seconds(start);
      await hand.join(4, [hand.member(3)]);
      await hand.join(5, [hand.member(3), hand.member(4)]);
      await allVoters(hand.url(3), 3);
      const completed = seconds(start);
      samples.push({ stopped, seedReady, completed });
      console.log(JSON.stringify({ byHand: true, run, stopped, seedReady, completed }));
    } finally {
      await removeAll(env, namespace, name);
    }
  }
  return samples;
}

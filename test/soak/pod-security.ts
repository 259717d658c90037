// The soak's Pod invariant (docs/design/soak.md, "The invariants"): no container of a Pod the product runs (members,
// seeds, backup, defrag and drill Jobs, the controller) runs as root or with a writable root filesystem. Pure: the
// executor lists the Pods and hands each here.
import type { V1Pod } from '@kubernetes/client-node';

/** Each container (init containers too) of `pod` that may run as root or write its root filesystem, with why. */
export function podSecurityViolations(pod: V1Pod): string[] {
  const podContext = pod.spec?.securityContext;
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return containers.flatMap((container) => {
    const context = container.securityContext;
    const user = context?.runAsUser ?? podContext?.runAsUser;
    const nonRoot = context?.runAsNonRoot ?? podContext?.runAsNonRoot;
    const where = `${pod.metadata?.name}/${container.name}`;
    const problems: string[] = [];
    // Either is enough for the kubelet: runAsNonRoot refuses to start a container whose user is 0.
    if (user === 0 || (nonRoot !== true && user === undefined))
      problems.push(
        `${where} may run as root (runAsUser ${user ?? 'unset'}, runAsNonRoot ${nonRoot ?? 'unset'})`,
      );
    if (context?.readOnlyRootFilesystem !== true) problems.push(`${where} has a writable root filesystem`);
    return problems;
  });
}

// Pod Security `restricted`: the fields every Pod template we synthesize carries.
import type { k8s } from 'cdk8s-plus-27';

/** The non-root user of our image (distroless `nonroot`). */
export const NON_ROOT_UID = 65532;

/** Pod-level security context that satisfies Pod Security `restricted`. */
export function restrictedPodSecurityContext(): k8s.PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: NON_ROOT_UID,
    runAsGroup: NON_ROOT_UID,
    fsGroup: NON_ROOT_UID,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** Container-level security context that satisfies Pod Security `restricted`, root filesystem read-only. */
export function restrictedContainerSecurityContext(): k8s.SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    privileged: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** Labels of a namespace whose Pods must meet Pod Security `restricted` (enforced, warned and audited). */
export function restrictedNamespaceLabels(): Record<string, string> {
  return {
    'pod-security.kubernetes.io/enforce': 'restricted',
    'pod-security.kubernetes.io/enforce-version': 'latest',
    'pod-security.kubernetes.io/warn': 'restricted',
    'pod-security.kubernetes.io/audit': 'restricted',
  };
}

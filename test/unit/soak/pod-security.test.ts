// The soak's Pod invariant (test/soak/pod-security.ts).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { podSecurityViolations } from '../../soak/pod-security.js';

const pod = (spec: V1Pod['spec']): V1Pod => ({ metadata: { name: 'p' }, spec });
const restricted = { readOnlyRootFilesystem: true, runAsNonRoot: true };

it('passes a Pod whose every container is non-root with a read-only root; names each container that is not', () => {
  assert.deepEqual(
    podSecurityViolations(
      pod({
        securityContext: { runAsNonRoot: true, runAsUser: 65532 },
        initContainers: [{ name: 'fetch', securityContext: { readOnlyRootFilesystem: true } }],
        containers: [{ name: 'etcd', securityContext: restricted }],
      }),
    ),
    [],
  );
  assert.deepEqual(
    podSecurityViolations(
      pod({
        initContainers: [{ name: 'init', securityContext: { readOnlyRootFilesystem: true } }],
        containers: [
          { name: 'root', securityContext: { ...restricted, runAsUser: 0 } },
          { name: 'writable', securityContext: { runAsNonRoot: true } },
        ],
      }),
    ),
    [
      'p/init may run as root (runAsUser unset, runAsNonRoot unset)',
      'p/root may run as root (runAsUser 0, runAsNonRoot true)',
      'p/writable has a writable root filesystem',
    ],
  );
});

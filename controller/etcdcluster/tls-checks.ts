// Step 3 refusals for spec.tls (docs/design/tls.md, "Validation" and "Turning TLS on or off"): a side added to or
// removed from running members, a Secret that cannot be used, a certificate whose DNS names miss a member.
// Pure: the Secrets were judged by tls-views.ts.
import {
  clientServiceHost,
  memberHost,
  peerServiceName,
  type Scheme,
} from '../../constructs/conventions/index.js';
import { nextMemberName } from './plan-facts.js';
import type { Refusal } from './spec-checks.js';
import { covers } from './tls-views.js';
import type { PlanInput } from './types.js';

const SIDES = ['client', 'peer'] as const;

function toggleRefusal(side: (typeof SIDES)[number], running: Scheme, wanted: Scheme, pod: string): Refusal {
  const what =
    side === 'peer'
      ? "peer URLs are part of etcd's membership"
      : 'its clients and the controller would lose it mid-roll';
  return {
    kind: 'Refuse',
    field: `spec.tls.${side}`,
    value: `${wanted === 'https' ? 'set' : 'unset'} while member Pod ${pod} serves ${running} (${what})`,
    allowed: `the ${side} TLS the cluster was created with; for another, a new EtcdCluster with the wanted spec.tls and spec.bootstrap.backup from a backup of this one`,
  };
}

/** The hosts a serving or peer certificate must cover: every member's, the next member's, and the Service's. */
function requiredHosts(input: PlanInput, kind: 'serving' | 'peer'): string[] {
  const { name, namespace } = input.cluster;
  const members = new Set<string>([
    ...input.pods.map((pod) => pod.member),
    ...(input.etcd?.members ?? []).flatMap((member) => (member.member ? [member.member] : [])),
    nextMemberName(input),
  ]);
  const hosts = [...members].map((member) => memberHost(name, namespace, member));
  hosts.push(
    kind === 'serving' ? clientServiceHost(name, namespace) : `${peerServiceName(name)}.${namespace}.svc`,
  );
  return hosts;
}

export function checkTls(input: PlanInput): Refusal | undefined {
  const { cluster } = input;
  for (const side of SIDES) {
    const wanted = cluster.schemes[side];
    const pod = input.pods.find((p) => p.schemes?.[side] !== undefined && p.schemes[side] !== wanted);
    if (pod) return toggleRefusal(side, pod.schemes?.[side] as Scheme, wanted, pod.name);
  }
  for (const secret of input.tls ?? []) {
    if (secret.problem)
      return {
        kind: 'Refuse',
        field: secret.field,
        value: `${secret.secretName} (${secret.problem})`,
        allowed:
          'a Secret in the cluster namespace with tls.crt, tls.key (its key) and ca.crt, valid now, signed by the CA that must trust it (docs/design/tls.md)',
      };
    if (secret.covers === 'none') continue;
    const missing = requiredHosts(input, secret.covers).filter(
      (host) => !secret.dnsNames.some((dnsName) => covers(dnsName, host)),
    );
    if (missing.length > 0) {
      const wildcard = `*.${peerServiceName(cluster.name)}.${cluster.namespace}.svc`;
      return {
        kind: 'Refuse',
        field: secret.field,
        value: `${secret.secretName} (tls.crt names ${secret.dnsNames.join(', ') || 'no DNS name'})`,
        allowed: `a certificate whose DNS names cover ${missing.join(', ')}, e.g. ${wildcard}`,
      };
    }
  }
  return undefined;
}

// Member Pod overrides, typed with the Kubernetes types cdk8s-plus-27 exports, rendered as the CRD's JSON.
import { k8s } from 'cdk8s-plus-27';
import { LABEL_COMPONENT, LABEL_INSTANCE, LABEL_NAME } from '../conventions/labels.js';
import { MEMBER_ANTI_AFFINITIES, type MemberAntiAffinity } from '../conventions/scheduling.js';
import type { EtcdClusterPodTemplate, Toleration } from '../imports/etcd.gitops.dev.js';
import { validateLabelMap, validateObjectName } from '../validate/names.js';

/** Overrides merged into every member Pod. */
export interface EtcdPodTemplateProps {
  /**
   * Extra Pod labels; our selector labels (`app.kubernetes.io/{name,instance,component}`) are refused.
   * @default - none
   */
  readonly labels?: Record<string, string>;
  /**
   * Extra Pod annotations.
   * @default - none
   */
  readonly annotations?: Record<string, string>;
  /**
   * Node and pod (anti-)affinity. The controller adds the member anti-affinity of `memberAntiAffinity` to it
   * (after the user's own pod anti-affinity terms): both apply.
   * @default - the member anti-affinity only
   */
  readonly affinity?: k8s.Affinity;
  /**
   * How members avoid sharing a node (`kubernetes.io/hostname`): `'Preferred'` puts them on distinct nodes when
   * it can (a preferred pod anti-affinity term: a one-node cluster still runs every member); `'Required'` never
   * puts two on one node (a required term: a member that finds no free node stays Pending, so `size` must not
   * exceed the schedulable nodes). Changing it rolls the members.
   * @default 'Preferred'
   */
  readonly memberAntiAffinity?: MemberAntiAffinity;
  /**
   * Tolerations of member Pods.
   * @default - none
   */
  readonly tolerations?: readonly k8s.Toleration[];
  /**
   * Node labels member Pods require.
   * @default - none
   */
  readonly nodeSelector?: Record<string, string>;
  /**
   * PriorityClass of member Pods.
   * @default - none (the cluster's default priority)
   */
  readonly priorityClassName?: string;
  /**
   * Topology spread constraints of member Pods.
   * @default - none
   */
  readonly topologySpreadConstraints?: readonly k8s.TopologySpreadConstraint[];
}

const RESERVED_LABELS = [LABEL_NAME, LABEL_INSTANCE, LABEL_COMPONENT];

function validatePodTemplate(template: EtcdPodTemplateProps): void {
  for (const key of Object.keys(template.labels ?? {})) {
    if (RESERVED_LABELS.includes(key)) {
      throw new Error(
        `'podTemplate.labels' must not set '${key}': member selectors use it (allowed: any other label), got '${template.labels?.[key]}'`,
      );
    }
  }
  validateLabelMap('podTemplate.labels', template.labels, true);
  validateLabelMap('podTemplate.nodeSelector', template.nodeSelector, true);
  validateLabelMap('podTemplate.annotations', template.annotations, false);
  if (template.priorityClassName !== undefined) {
    validateObjectName('podTemplate.priorityClassName', template.priorityClassName);
  }
  const anti = template.memberAntiAffinity;
  if (anti !== undefined && !(MEMBER_ANTI_AFFINITIES as readonly unknown[]).includes(anti)) {
    throw new Error(
      `'podTemplate.memberAntiAffinity' must be ${MEMBER_ANTI_AFFINITIES.map((m) => `'${m}'`).join(' or ')}, got ${JSON.stringify(anti)}`,
    );
  }
}

/** The CRD's `podTemplate` for the props (Kubernetes JSON field names), validated; undefined fields left out. */
export function renderPodTemplate(
  template: EtcdPodTemplateProps | undefined,
): EtcdClusterPodTemplate | undefined {
  if (!template) return undefined;
  validatePodTemplate(template);
  const rendered: EtcdClusterPodTemplate = {
    labels: template.labels,
    annotations: template.annotations,
    affinity: k8s.toJson_Affinity(template.affinity),
    memberAntiAffinity: template.memberAntiAffinity,
    tolerations: template.tolerations?.map((t) => k8s.toJson_Toleration(t) as Toleration),
    nodeSelector: template.nodeSelector,
    priorityClassName: template.priorityClassName,
    topologySpreadConstraints: template.topologySpreadConstraints?.map(
      (c) => k8s.toJson_TopologySpreadConstraint(c) as Record<string, unknown>,
    ),
  };
  return Object.fromEntries(
    Object.entries(rendered).filter(([, value]) => value !== undefined),
  ) as EtcdClusterPodTemplate;
}

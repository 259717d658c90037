// Member Pod overrides, typed with the Kubernetes types cdk8s-plus-27 exports, rendered as the CRD's JSON.
import { k8s } from 'cdk8s-plus-27';
import { LABEL_COMPONENT, LABEL_INSTANCE, LABEL_NAME } from '../conventions/labels.js';
import type { EtcdClusterPodTemplate, Toleration } from '../imports/etcd.gitops.dev.js';
import { validateObjectName } from '../validate/names.js';

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
   * Node and pod (anti-)affinity. The controller adds the default pod anti-affinity (members preferably on
   * distinct nodes) to it: both apply.
   * @default - the default pod anti-affinity only
   */
  readonly affinity?: k8s.Affinity;
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
  if (template.priorityClassName !== undefined) {
    validateObjectName('podTemplate.priorityClassName', template.priorityClassName);
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

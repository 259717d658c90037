// A container's resources from quantities as props take them: validated, named by their prop, as cdk8s-plus writes them.
import { k8s } from 'cdk8s-plus-27';
import { quantityBytes } from '../conventions/quantity.js';
import {
  type QuantityInput,
  quantityOf,
  renderQuantities,
  validateLimitsCoverRequests,
} from '../validate/quantity.js';

type Quantities = Readonly<Record<string, QuantityInput>> | undefined;

/** `requests` and `limits` checked (each a positive quantity, no limit below its request) under `prop`. */
export function containerResources(
  prop: string,
  requests: Quantities,
  limits: Quantities,
): k8s.ResourceRequirements {
  const renderedRequests = renderQuantities(`${prop}.requests`, requests);
  const renderedLimits = renderQuantities(`${prop}.limits`, limits);
  validateLimitsCoverRequests(prop, renderedRequests, renderedLimits);
  return { requests: kubeQuantities(renderedRequests), limits: kubeQuantities(renderedLimits) };
}

function kubeQuantities(
  map: Readonly<Record<string, string>> | undefined,
): Record<string, k8s.Quantity> | undefined {
  if (!map || Object.keys(map).length === 0) return undefined;
  return Object.fromEntries(
    Object.entries(map).map(([name, value]) => [name, k8s.Quantity.fromString(value)]),
  );
}

/** The memory limit among `limits`, in bytes (validated under `prop`), or undefined when none is set. */
export function memoryLimitBytes(prop: string, limits: Quantities): number | undefined {
  const memory = limits?.memory;
  return memory === undefined ? undefined : quantityBytes(quantityOf(`${prop}.limits.memory`, memory));
}

/** The `NODE_OPTIONS` variable of a container of our image, when its memory limit gives one. */
export function nodeOptionsEnv(nodeOptions: string | undefined): k8s.EnvVar[] {
  return nodeOptions === undefined ? [] : [{ name: 'NODE_OPTIONS', value: nodeOptions }];
}

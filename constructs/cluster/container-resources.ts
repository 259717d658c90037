// A container's resources from quantities as props take them: validated, named by their prop, as cdk8s-plus writes them.
import { k8s } from 'cdk8s-plus-27';
import { type QuantityInput, renderQuantities, validateLimitsCoverRequests } from '../validate/quantity.js';

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

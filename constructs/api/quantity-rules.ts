// CEL rules over Kubernetes quantities, with the API server's quantity library (`isQuantity`, `quantity`,
// `compareTo`): the checks the constructs make at synth time, made again at admission for objects written by hand.
// Each message names the value, in the controller's words (describeProblem), and says what is allowed; the field
// is in the message or, for a value in a map, in the error's path (`spec.resources.limits[memory]`). A value that is
// not a quantity at all is left to the schema's pattern.
//
// The API server estimates each rule's cost before it accepts the CRD (about 1/100 of a rule's budget is what
// these may cost): converting a string with `string()`, or joining a list built from a map, counts as unbounded in
// a messageExpression. So an int-or-string value is converted only when it is an integer, and maps get a rule per
// value, or per known resource name.
import { describeProblem, MIN_QUOTA_BACKEND, quotaAllowed } from '../conventions/etcd-backend.js';
import { MIN_STORAGE_SIZE, STORAGE_SIZE_ALLOWED } from '../conventions/limits.js';
import { limitAllowed, POSITIVE_QUANTITY_ALLOWED } from '../conventions/quantity.js';
import { cel, celConcat } from './cel-text.js';
import type { CelRule } from './json-schema.js';

/** An int-or-string CEL expression as text (an integer converted, a string as it is). */
const text = (expression: string) => `(type(${expression}) == int ? string(${expression}) : ${expression})`;
const isQuantity = (expression: string) => `isQuantity(${text(expression)})`;
const quantity = (expression: string) => `quantity(${text(expression)})`;

/** `<field>: '<value>' is not allowed; allowed: <allowed>`, with `value` a CEL expression (`field` and `allowed` may
 *  hold `cel(...)` parts). */
const problem = (field: string, value: string, allowed: string) =>
  celConcat(describeProblem({ field, value: cel(text(value)), allowed }));

/** On `storage`: `size` at least MIN_STORAGE_SIZE. */
export const storageSizeRule: CelRule = {
  rule: `!has(self.size) || !isQuantity(self.size) || quantity(self.size).compareTo(quantity('${MIN_STORAGE_SIZE}')) >= 0`,
  message: `storage.size must be ${STORAGE_SIZE_ALLOWED}`,
  messageExpression: celConcat(
    describeProblem({ field: 'spec.storage.size', value: cel('self.size'), allowed: STORAGE_SIZE_ALLOWED }),
  ),
  fieldPath: '.size',
};

/** On each value of a map of quantities (`resources.requests`, `.limits`): greater than zero. The error's path
 *  names the map and the key. */
export const positiveQuantityRule: CelRule = {
  rule: `type(self) == int ? self > 0 : (!isQuantity(self) || quantity(self).compareTo(quantity('0')) > 0)`,
  message: `must be ${POSITIVE_QUANTITY_ALLOWED}`,
  messageExpression: celConcat(
    `'${cel(text('self'))}' is not allowed; allowed: ${POSITIVE_QUANTITY_ALLOWED}`,
  ),
};

/** The resources whose limit `limitsCoverRequestsRules` compares with the request. Kubernetes checks others
 *  (huge pages, extended resources) when the controller creates a member Pod. */
export const LIMITED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'] as const;

/** On `resources` written at `field`: the limit of each of LIMITED_RESOURCES at least its request. */
export function limitsCoverRequestsRules(field: string): CelRule[] {
  return LIMITED_RESOURCES.map((name) => {
    const limit = `self.limits['${name}']`;
    const request = `self.requests['${name}']`;
    return {
      rule:
        `!has(self.limits) || !has(self.requests) || !('${name}' in self.limits) || !('${name}' in self.requests) || ` +
        `!${isQuantity(limit)} || !${isQuantity(request)} || ${quantity(limit)}.compareTo(${quantity(request)}) >= 0`,
      message: `${field}.limits.${name} must be at least ${field}.requests.${name}: Kubernetes refuses a limit below its request`,
      messageExpression: problem(
        `${field}.limits.${name}`,
        limit,
        limitAllowed(`${field}.requests.${name}`, cel(text(request))),
      ),
    };
  });
}

/** On the spec: `quotaBackendBytes` from MIN_QUOTA_BACKEND to the member volume (when it is not ephemeral). */
const ephemeral = 'has(self.storage) && has(self.storage.ephemeral) && self.storage.ephemeral';
const volumeSize = `has(self.storage) && has(self.storage.size) && isQuantity(self.storage.size) && !(${ephemeral})`;
const quota = 'self.quotaBackendBytes';
export const quotaBackendBytesRule: CelRule = {
  rule:
    `!has(${quota}) || !${isQuantity(quota)} || (${quantity(quota)}.compareTo(quantity('${MIN_QUOTA_BACKEND}')) >= 0 && ` +
    `(!(${volumeSize}) || ${quantity(quota)}.compareTo(quantity(self.storage.size)) <= 0))`,
  message: `quotaBackendBytes must be ${quotaAllowed('storage.size')}`,
  messageExpression:
    `(${volumeSize}) ? ${problem('spec.quotaBackendBytes', quota, quotaAllowed(cel('self.storage.size')))} : ` +
    problem('spec.quotaBackendBytes', quota, quotaAllowed()),
  fieldPath: '.quotaBackendBytes',
};

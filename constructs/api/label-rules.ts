// CEL rules on the keys of label and annotation maps (`podTemplate.labels`, `.annotations`, `.nodeSelector`):
// the API server refuses a member Pod whose keys are not qualified names, so admission refuses them first, naming
// the first bad key. (Label values are checked by the schema's pattern and maxLength.)
import { describeProblem } from '../conventions/etcd-backend.js';
import { QUALIFIED_NAME_ALLOWED, QUALIFIED_NAME_PATTERN } from '../conventions/name-patterns.js';
import { cel, celConcat } from './cel-text.js';
import type { CelRule } from './json-schema.js';

/** At most this many keys in one map: a bound the API server's CEL cost estimate needs. */
export const MAX_MAP_KEYS = 64;

/** On a map written at `field`: every key a qualified name. */
export function qualifiedKeysRule(field: string): CelRule {
  const good = (k: string) => `${k}.matches('${QUALIFIED_NAME_PATTERN}')`;
  return {
    rule: `self.all(k, ${good('k')})`,
    message: `${field} keys must be qualified names: ${QUALIFIED_NAME_ALLOWED}`,
    messageExpression: celConcat(
      describeProblem({
        field: `${field} key`,
        value: cel(`self.filter(k, !${good('k')})[0]`),
        allowed: QUALIFIED_NAME_ALLOWED,
      }),
    ),
  };
}

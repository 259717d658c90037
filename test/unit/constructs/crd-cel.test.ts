// Every CEL rule and messageExpression of our CRDs type-checks offline (cel-types.ts): a rule is a bool, a message
// a string, against `self` typed from the schema node it sits on. One messageExpression once read
// `'...' + cond ? a : b` (`+` binds tighter): only the API server refused it, in the crd-rules e2e. This catches it
// in the unit layer; the second test shows the check bites.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { etcdClusterCrd, etcdRestoreCrd } from '../../../constructs/api/crds.js';
import { environmentFor, type SchemaNode, typeProblem, validatedNodes } from './cel-types.js';

interface Crd {
  readonly spec: {
    readonly names: { readonly kind: string };
    readonly versions: readonly {
      readonly name: string;
      readonly schema: { readonly openAPIV3Schema: SchemaNode };
    }[];
  };
}

const crds = [etcdClusterCrd(), etcdRestoreCrd()] as unknown as Crd[];

describe("the CRDs' CEL rules, type-checked", () => {
  for (const crd of crds)
    for (const version of crd.spec.versions) {
      const root = version.schema.openAPIV3Schema;
      for (const [path, node] of validatedNodes(root, `${crd.spec.names.kind}@${version.name}`))
        it(`GIVEN the rules on ${path} THEN each rule is a bool and each messageExpression a string`, () => {
          const env = environmentFor(node);
          const problems = (node['x-kubernetes-validations'] ?? []).flatMap(({ rule, messageExpression }) => [
            ...[typeProblem(env, rule, 'bool')].flatMap((p) => (p ? [`rule ${rule}: ${p}`] : [])),
            ...(messageExpression
              ? [typeProblem(env, messageExpression, 'string')].flatMap((p) =>
                  p ? [`messageExpression ${messageExpression}: ${p}`] : [],
                )
              : []),
          ]);
          assert.deepEqual(problems, []);
        });
    }

  it('GIVEN the precedence slip and a rule that is no bool THEN the check names both', () => {
    const env = environmentFor({
      type: 'object',
      properties: { key: { type: 'string' }, prefix: { type: 'string' } },
    });
    assert.match(
      typeProblem(env, "'got ' + has(self.key) ? 'key' : 'prefix'", 'string') ?? '',
      /no such overload: string \+ bool/,
    );
    assert.equal(typeProblem(env, "'got ' + (has(self.key) ? 'key' : 'prefix')", 'string'), undefined);
    assert.equal(typeProblem(env, 'self.key', 'bool'), 'has type string, not bool');
    assert.match(typeProblem(env, 'self.size > 0', 'bool') ?? '', /size/);
  });
});

// A CEL environment for one node of a CRD's OpenAPI schema, for type-checking its `x-kubernetes-validations`
// offline (crd-cel.test.ts): `self` and `oldSelf` typed from the schema (objects with properties as named CEL types,
// maps, lists, scalars; int-or-string and unknown fields as `dyn`), and the Kubernetes quantity functions our rules
// use. The API server compiles the same expressions with its own environment (the crd-rules e2e); this catches a
// wrong type or precedence in a unit run, not a rule's cost or a function the API server lacks.
import { Environment } from '@marcbachmann/cel-js';

/** An OpenAPI v3 schema node, as far as the CEL types need it. */
export interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-validations'?: readonly {
    rule: string;
    message?: string;
    messageExpression?: string;
  }[];
}

/** Kubernetes' `Quantity` (k8s.io/apiserver/pkg/cel/library/quantity.go): only its type matters here. */
class Quantity {}

/** The functions of the Kubernetes CEL libraries our rules call, with their declared types. */
function kubernetesEnvironment(): Environment {
  return new Environment()
    .registerType('Quantity', Quantity)
    .registerFunction('isQuantity(string): bool', () => true)
    .registerFunction('quantity(string): Quantity', () => new Quantity())
    .registerFunction('Quantity.compareTo(Quantity): int', () => 0n)
    .registerFunction('Quantity.isGreaterThan(Quantity): bool', () => false)
    .registerFunction('Quantity.isLessThan(Quantity): bool', () => false)
    .registerFunction('Quantity.asInteger(): int', () => 0n)
    .registerFunction('Quantity.sign(): int', () => 0n);
}

/** An environment whose `self` and `oldSelf` have the type of `node`. */
export function environmentFor(node: SchemaNode): Environment {
  const env = kubernetesEnvironment();
  let types = 0;
  const celType = (schema: SchemaNode): string => {
    if (schema['x-kubernetes-int-or-string'] || schema['x-kubernetes-preserve-unknown-fields']) return 'dyn';
    switch (schema.type) {
      case 'string':
        return 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${celType(schema.items ?? {})}>`;
      case 'object': {
        if (schema.properties) {
          const name = `T${types++}`;
          const fields = Object.fromEntries(
            Object.entries(schema.properties).map(([field, value]) => [field, celType(value)]),
          );
          env.registerType(name, { fields });
          // Kubernetes compares two objects of one schema field by field (a transition rule's self == oldSelf).
          env.registerOperator(`${name} == ${name}`, () => true);
          return name;
        }
        const values = schema.additionalProperties;
        return typeof values === 'object' ? `map<string, ${celType(values)}>` : 'map<string, dyn>';
      }
      default:
        return 'dyn';
    }
  };
  const self = celType(node);
  return env.registerVariable('self', self).registerVariable('oldSelf', self);
}

/** Every schema node that carries validation rules, with its path (`.` fields, `[]` items, `{}` map values). */
export function validatedNodes(root: SchemaNode, path: string): [string, SchemaNode][] {
  const found: [string, SchemaNode][] = root['x-kubernetes-validations'] ? [[path, root]] : [];
  for (const [field, value] of Object.entries(root.properties ?? {}))
    found.push(...validatedNodes(value, `${path}.${field}`));
  if (root.items) found.push(...validatedNodes(root.items, `${path}[]`));
  if (typeof root.additionalProperties === 'object')
    found.push(...validatedNodes(root.additionalProperties, `${path}{}`));
  return found;
}

/** Why `expression` is not an expression of type `want` in `env`, or undefined when it is. */
export function typeProblem(
  env: Environment,
  expression: string,
  want: 'bool' | 'string',
): string | undefined {
  const result = env.check(expression);
  if (!result.valid) return result.error?.message.split('\n')[0] ?? 'invalid';
  return result.type === want ? undefined : `has type ${result.type}, not ${want}`;
}

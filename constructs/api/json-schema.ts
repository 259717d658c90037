/**
 * The subset of the Kubernetes `JSONSchemaProps` (apiextensions.k8s.io/v1) that our CRDs use. A structural
 * schema: every node has a `type` (or `x-kubernetes-int-or-string` / `x-kubernetes-preserve-unknown-fields`).
 */
export interface JsonSchema {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'boolean' | 'number';
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly additionalProperties?: JsonSchema;
  readonly enum?: readonly (string | number)[];
  readonly default?: unknown;
  readonly format?: string;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly 'x-kubernetes-validations'?: readonly CelRule[];
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
  readonly 'x-kubernetes-embedded-resource'?: boolean;
}

/** A CEL validation rule (`x-kubernetes-validations` entry). */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
  readonly messageExpression?: string;
  readonly reason?:
    | 'FieldValueInvalid'
    | 'FieldValueForbidden'
    | 'FieldValueRequired'
    | 'FieldValueDuplicate';
  readonly fieldPath?: string;
}

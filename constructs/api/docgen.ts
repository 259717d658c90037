// Renders the API reference (docs/api/etcdcluster.md) from the schemas, so the docs cannot drift from the CRDs.
import { etcdClusterCrd, etcdRestoreCrd } from './crds.js';
import { etcdClusterSchema } from './etcd-cluster-schema.js';
import { etcdRestoreSchema } from './etcd-restore-schema.js';
import type { JsonSchema } from './json-schema.js';

function typeName(s: JsonSchema): string {
  if (s['x-kubernetes-int-or-string']) return 'int or string';
  if (s.enum) return s.enum.map((v) => `\`${v}\``).join(' \\| ');
  if (s.type === 'array') return `[]${typeName(s.items ?? {})}`;
  if (s.type === 'object' && !s.properties && s.additionalProperties)
    return `map[string]${typeName(s.additionalProperties)}`;
  return s.type ?? 'object';
}

function rows(s: JsonSchema, path: string, required: boolean): string[] {
  const cells = [
    `\`${path}\``,
    typeName(s),
    required ? 'yes' : '',
    s.default === undefined ? '' : `\`${JSON.stringify(s.default)}\``,
    (s.description ?? '').replace(/\|/g, '\\|'),
  ];
  const own = path ? [`| ${cells.join(' | ')} |`] : [];
  const req = new Set(s.required ?? []);
  const children = Object.entries(s.properties ?? {}).flatMap(([k, v]) =>
    rows(v, path ? `${path}.${k}` : k, req.has(k)),
  );
  const items =
    s.type === 'array' && s.items?.properties
      ? rows({ ...s.items, description: undefined }, `${path}[]`, false).slice(1)
      : [];
  return [...own, ...children, ...items];
}

function rules(s: JsonSchema, path: string): string[] {
  const own = (s['x-kubernetes-validations'] ?? []).map((r) => `- \`${path || '(object)'}\`: ${r.message}`);
  const children = Object.entries(s.properties ?? {}).flatMap(([k, v]) =>
    rules(v, path ? `${path}.${k}` : k),
  );
  return [...own, ...children];
}

function section(kind: string, schema: JsonSchema, crd: ReturnType<typeof etcdClusterCrd>): string {
  const names = crd.spec.names as { shortNames: string[]; categories: string[] };
  const table = ['| field | type | required | default | description |', '|---|---|---|---|---|'];
  const body = (part: 'spec' | 'status') =>
    [...table, ...rows(schema.properties?.[part] ?? {}, part, false).slice(1)].join('\n');
  return [
    `## ${kind}`,
    '',
    `${schema.description} \`kubectl get ${names.shortNames.join('|')}\`; category \`${names.categories.join(', ')}\`.`,
    '',
    '### spec',
    '',
    body('spec'),
    '',
    '### status',
    '',
    body('status'),
    '',
    '### Validation rules (CEL, enforced by the API server)',
    '',
    ...rules(schema, ''),
    '',
  ].join('\n');
}

/** Markdown of docs/api/etcdcluster.md. */
export function renderApiReference(): string {
  return [
    '# API reference: `etcd.gitops.dev/v1alpha1`',
    '',
    '<!-- Generated from constructs/api/*-schema.ts by `npm run gen:api`. Do not edit by hand. -->',
    '',
    section('EtcdCluster', etcdClusterSchema, etcdClusterCrd()),
    section('EtcdRestore', etcdRestoreSchema, etcdRestoreCrd()),
  ].join('\n');
}

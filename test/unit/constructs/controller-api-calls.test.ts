// The controller's RBAC is exactly what its source calls: every Kubernetes API call in controller/ is found and
// turned into a (resource, verb) pair, and the pairs must equal what the operator's rules grant. A verb granted
// but never used, or a call without a grant, fails here instead of in a cluster.
//
// How calls are found: the method names of every generated API class of @kubernetes/client-node (CoreV1Api,
// CustomObjectsApi, CoordinationV1Api, ...) are searched as `.method(` in controller/**/*.ts; custom-object calls
// take their resource from the `plural:` they pass. Our wrappers (`patchStatus`, `patchStatusAt`) and the informers (LIST and WATCH
// of their `resource:`) are resolved the same way. What cannot be derived fails with a message saying so: the
// generic KubernetesObjectApi (`applyObject`), raw LIST/WATCH requests outside the informer, and a custom-object call whose plural is not one of our constants.
// API groups are not compared (every resource name we use is unique across groups); the rules test in
// etcd-operator.test.ts pins the groups.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import * as clientNode from '@kubernetes/client-node';
import { ETCD_CLUSTER_PLURAL, ETCD_RESTORE_PLURAL } from '../../../constructs/conventions/api.js';
import {
  CONTROLLER_LEADER_ELECTION_RULES,
  CONTROLLER_NODE_RULES,
  CONTROLLER_WATCHED_NAMESPACE_RULES,
  controllerCredentialRules,
} from '../../../constructs/operator-rbac.js';
import * as resources from '../../../controller/runtime/resources.js';
import { repoRoot } from '../../env/binaries.js';

/** Our plural constants, as a custom-object call names them. */
const PLURAL_CONSTANTS: Record<string, string> = {
  ETCD_CLUSTER_PLURAL,
  ETCD_RESTORE_PLURAL,
};

/**
 * Grants no call in the source shows, each with why it is still needed (and a check that the reason holds).
 */
const IMPLICIT: ReadonlyArray<{ use: string; why: string; holds: (source: Source[]) => boolean }> = [
  {
    use: `${ETCD_CLUSTER_PLURAL}/finalizers:update`,
    why: 'member Pods and PVCs are created with an ownerReference to their EtcdCluster with blockOwnerDeletion, which OwnerReferencesPermissionEnforcement admits only for who may update the owner finalizers',
    holds: (source) =>
      source.some(
        (file) =>
          file.path === 'controller/etcdcluster/owner.ts' && /blockOwnerDeletion: true/.test(file.text),
      ),
  },
];

/** Where generic (KubernetesObjectApi) and raw (LIST pages, WATCH) requests may live: they are resolved by their
 *  callers (`applyObject` has none in controller/) and by `new Informer(...)` / `informerOf(...)`. */
const KUBE = ['controller/runtime/kube.ts'];
const INFORMER = ['controller/runtime/informer.ts', 'controller/runtime/list-request.ts'];

/** Our functions that call the API for their caller: the call inside is resolved at each call site. */
const WRAPPERS: Readonly<Record<string, { definedIn: string; verb: string; subresource?: string }>> = {
  patchStatus: { definedIn: 'controller/runtime/kube.ts', verb: 'patch', subresource: 'status' },
  patchStatusAt: { definedIn: 'controller/runtime/kube.ts', verb: 'patch', subresource: 'status' },
};

interface Source {
  readonly path: string;
  readonly text: string;
}

function sources(dir: string): Source[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) return [];
    return [{ path: relative(repoRoot, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }];
  });
}

/** The text of a call's arguments, from the `(` at `open` to its matching `)`. */
function callArguments(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`unbalanced call at ${open}`);
}

/** Method names of the generated API classes (not the generic KubernetesObjectApi). */
function apiMethodNames(): Set<string> {
  const names = new Set<string>();
  for (const [exportName, value] of Object.entries(clientNode)) {
    if (!exportName.endsWith('Api') || exportName === 'KubernetesObjectApi' || typeof value !== 'function')
      continue;
    for (const method of Object.getOwnPropertyNames((value as { prototype: object }).prototype)) {
      if (method !== 'constructor' && !method.endsWith('WithHttpInfo')) names.add(method);
    }
  }
  return names;
}

const VERB_PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ['deleteCollection', 'deletecollection'],
  ['create', 'create'],
  ['delete', 'delete'],
  ['list', 'list'],
  ['patch', 'patch'],
  ['read', 'get'],
  ['get', 'get'],
  ['replace', 'update'],
];

const SUBRESOURCES: Readonly<Record<string, string>> = {
  Status: 'status',
  Eviction: 'eviction',
  Token: 'token',
};

function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  if (lower.endsWith('s')) return `${lower}es`;
  return `${lower}s`;
}

/** `createNamespacedPodEviction` → `pods/eviction:create`; custom objects take `plural` from their arguments. */
function useOf(method: string, args: string, where: string): string {
  const prefix = VERB_PREFIXES.find(([name]) => method.startsWith(name));
  if (!prefix) throw new Error(`${where}: ${method} is not a verb this test knows; teach it`);
  const [name, verb] = prefix;
  let rest = method
    .slice(name.length)
    .replace(/^Namespaced|^Cluster/, '')
    .replace(/ForAllNamespaces$/, '');
  let subresource: string | undefined;
  for (const [suffix, sub] of Object.entries(SUBRESOURCES)) {
    if (rest.length > suffix.length && rest.endsWith(suffix)) {
      rest = rest.slice(0, -suffix.length);
      subresource = sub;
    }
  }
  let resource: string;
  if (rest === 'CustomObject') {
    const constant = /\bplural:\s*(\w+)/.exec(args)?.[1];
    const plural = constant ? PLURAL_CONSTANTS[constant] : undefined;
    if (!plural)
      throw new Error(`${where}: ${method} names no plural constant this test knows (${constant})`);
    resource = plural;
  } else {
    resource = pluralOf(rest);
  }
  return `${subresource ? `${resource}/${subresource}` : resource}:${verb}`;
}

/** Every (resource:verb) the controller's source uses, each with where. */
function derivedUses(source: Source[]): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  const add = (use: string, where: string) => uses.set(use, [...(uses.get(use) ?? []), where]);
  const methods = apiMethodNames();
  for (const { path, text } of source) {
    for (const match of text.matchAll(/\.(\w+)\(/g)) {
      const method = match[1] as string;
      if (!methods.has(method)) continue;
      const open = (match.index as number) + match[0].length - 1;
      const args = callArguments(text, open);
      const where = `${path}:${text.slice(0, match.index).split('\n').length}`;
      const wrapper = Object.entries(WRAPPERS).find(([, w]) => w.definedIn === path);
      if (wrapper && /\.\.\.resource\b/.test(args) && !/\bplural:/.test(args)) continue; // resolved at call sites
      add(useOf(method, args, where), where);
    }
    for (const [name, wrapper] of Object.entries(WRAPPERS)) {
      for (const match of text.matchAll(new RegExp(`\\b${name}\\(`, 'g'))) {
        if (path === wrapper.definedIn) continue;
        const where = `${path}:${text.slice(0, match.index).split('\n').length}`;
        const args = callArguments(text, (match.index as number) + match[0].length - 1);
        const id = args.split(',')[1]?.trim() ?? '';
        const declared = new RegExp(`const ${id} = \\{[^}]*\\bplural:\\s*(\\w+)`).exec(text)?.[1];
        const plural = declared ? PLURAL_CONSTANTS[declared] : undefined;
        if (!plural) throw new Error(`${where}: ${name}(..., ${id}) names no resource this test can resolve`);
        add(`${plural}${wrapper.subresource ? `/${wrapper.subresource}` : ''}:${wrapper.verb}`, where);
      }
    }
    // `informerOf(...)`: SharedInformers' one informer per resource (or per resource and watched namespace).
    for (const match of text.matchAll(/\b(?:new Informer|informerOf)\(/g)) {
      const where = `${path}:${text.slice(0, match.index).split('\n').length}`;
      const args = callArguments(text, (match.index as number) + match[0].length - 1);
      const id = /\bresource:\s*(\w+)/.exec(args)?.[1] ?? '';
      const resource = (resources as Record<string, unknown>)[id] as { plural?: string } | undefined;
      if (!resource?.plural)
        throw new Error(`${where}: an Informer of ${id}, not a ResourceType of resources.ts`);
      add(`${resource.plural}:list`, where);
      add(`${resource.plural}:watch`, where);
    }
    for (const match of text.matchAll(/\b(applyObject\(|KubernetesObjectApi\b|new Watch\(|listPage\()/g)) {
      const home =
        match[1]?.startsWith('applyObject') || match[1] === 'KubernetesObjectApi' ? KUBE : INFORMER;
      if (home.includes(path)) continue;
      const where = `${path}:${text.slice(0, match.index).split('\n').length}`;
      throw new Error(
        `${where}: the generic object API cannot be checked against the RBAC here; teach this test`,
      );
    }
  }
  return uses;
}

function granted(): Set<string> {
  const rules = [
    ...CONTROLLER_WATCHED_NAMESPACE_RULES,
    ...CONTROLLER_NODE_RULES,
    ...CONTROLLER_LEADER_ELECTION_RULES,
    ...controllerCredentialRules('any'),
  ];
  return new Set(
    rules.flatMap((rule) =>
      (rule.resources ?? []).flatMap((resource) => rule.verbs.map((verb) => `${resource}:${verb}`)),
    ),
  );
}

describe('controller RBAC derived from the controller source', () => {
  const source = sources(join(repoRoot, 'controller'));
  const uses = derivedUses(source);

  it('GIVEN the source THEN the calls the RBAC is about are found (the scanner sees them)', () => {
    for (const use of [
      'pods/eviction:create',
      'pods:patch',
      'pods:watch',
      'etcdclusters/status:patch',
      'etcdrestores/status:patch',
      'leases:update',
      'secrets:get',
      'events:patch',
    ]) {
      assert.ok(uses.has(use), `${use} not found in controller/`);
    }
  });

  it('GIVEN every API call in controller/ THEN each is granted', () => {
    const rules = granted();
    const missing = [...uses.entries()].filter(([use]) => !rules.has(use));
    assert.deepEqual(
      missing.map(([use, where]) => `${use} (${where.join(', ')})`),
      [],
      'calls without a grant: add them to constructs/operator-rbac.ts',
    );
  });

  it('GIVEN the grants THEN each is used by a call in controller/ or is a documented implicit use', () => {
    for (const implicit of IMPLICIT)
      assert.ok(implicit.holds(source), `no longer needed? ${implicit.use}: ${implicit.why}`);
    const implicit = new Set(IMPLICIT.map((entry) => entry.use));
    const unused = [...granted()].filter((use) => !uses.has(use) && !implicit.has(use));
    assert.deepEqual(unused, [], 'granted but never used: remove them from constructs/operator-rbac.ts');
  });
});

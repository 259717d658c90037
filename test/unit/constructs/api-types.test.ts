import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { etcdClusterCrd, etcdRestoreCrd } from '../../../constructs/api/crds.js';
import { renderApiReference } from '../../../constructs/api/docgen.js';
import type { JsonSchema } from '../../../constructs/api/json-schema.js';
import { renderApiTypes } from '../../../constructs/api/typegen.js';
import { repoRoot } from '../../env/binaries.js';

/** Paths of schema nodes that are not structural (no type, and not int-or-string or preserve-unknown). */
function untyped(schema: JsonSchema, path: string): string[] {
  const ok =
    schema.type || schema['x-kubernetes-int-or-string'] || schema['x-kubernetes-preserve-unknown-fields'];
  const here = ok ? [] : [path];
  const props = Object.entries(schema.properties ?? {}).flatMap(([k, v]) => untyped(v, `${path}.${k}`));
  const items = schema.items ? untyped(schema.items, `${path}[]`) : [];
  const extra = schema.additionalProperties ? untyped(schema.additionalProperties, `${path}{}`) : [];
  return [...here, ...props, ...items, ...extra];
}

function openApiSchema(crd: ReturnType<typeof etcdClusterCrd>): JsonSchema {
  const versions = crd.spec.versions as Array<{ schema: { openAPIV3Schema: JsonSchema } }>;
  return versions[0]!.schema.openAPIV3Schema;
}

describe('API source of truth (constructs/api)', () => {
  it('GIVEN the schemas WHEN types are rendered THEN constructs/imports/etcd.gitops.dev.ts is current', () => {
    const committed = readFileSync(join(repoRoot, 'constructs', 'imports', 'etcd.gitops.dev.ts'), 'utf8');
    assert.equal(committed, renderApiTypes(), 'stale generated types: run `npm run gen:api` and commit');
  });

  it('GIVEN the schemas WHEN the API reference is rendered THEN docs/api/etcdcluster.md is current', () => {
    const committed = readFileSync(join(repoRoot, 'docs', 'api', 'etcdcluster.md'), 'utf8');
    assert.equal(committed, renderApiReference(), 'stale API reference: run `npm run gen:api` and commit');
  });

  for (const crd of [etcdClusterCrd(), etcdRestoreCrd()]) {
    it(`GIVEN the ${crd.metadata.name} CRD WHEN its schema is walked THEN every node is structural`, () => {
      assert.deepEqual(untyped(openApiSchema(crd), ''), []);
    });
  }

  it('GIVEN the EtcdCluster CRD THEN it has status and scale subresources bound to size and replicas', () => {
    const version = (etcdClusterCrd().spec.versions as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual(version.subresources, {
      status: {},
      scale: {
        specReplicasPath: '.spec.size',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
  });

  it('GIVEN the EtcdCluster schema THEN podTemplate.memberAntiAffinity is an enum of Preferred and Required, default Preferred', () => {
    const podTemplate = openApiSchema(etcdClusterCrd()).properties!.spec!.properties!.podTemplate!;
    const anti = podTemplate.properties!.memberAntiAffinity!;
    assert.deepEqual(
      [anti.type, anti.enum, anti.default],
      ['string', ['Preferred', 'Required'], 'Preferred'],
    );
  });

  it('GIVEN the EtcdCluster schema THEN size defaults to 3 within 1..9 and version is required', () => {
    const spec = openApiSchema(etcdClusterCrd()).properties!.spec!;
    assert.deepEqual(spec.required, ['version']);
    const size = spec.properties!.size!;
    assert.deepEqual([size.default, size.minimum, size.maximum], [3, 1, 9]);
    assert.equal(spec.properties!.storage!.properties!.size!.default, '1Gi');
  });

  it('GIVEN the EtcdCluster schema THEN the version path rules sit at the root and start from status.currentVersion when set, else the old spec', () => {
    // The rules' verdicts are proven on a real API server (test/e2e/crd-rules.test.ts); here, that they exist, are
    // guarded, and speak the controller's words.
    const root = openApiSchema(etcdClusterCrd());
    const ownRules = root.properties!.spec!.properties!.version!['x-kubernetes-validations']!;
    assert.ok(
      ownRules.every((r) => !r.rule.includes('oldSelf')),
      'no transition rule on spec.version itself: it cannot see the status',
    );
    const rules = root['x-kubernetes-validations']!.filter((r) => r.fieldPath === '.spec.version');
    assert.equal(rules.length, 3, rules.map((r) => r.rule).join('\n'));
    const known =
      "(has(oldSelf.status) && has(oldSelf.status.currentVersion) && oldSelf.status.currentVersion.matches('";
    for (const { rule, messageExpression = '' } of rules) {
      assert.ok(rule.startsWith('!(self.spec.version != oldSelf.spec.version && '), rule);
      assert.ok(rule.includes(known), rule);
      assert.ok(rule.includes(' ? oldSelf.status.currentVersion : oldSelf.spec.version)'), rule);
      assert.ok(
        messageExpression.startsWith('"spec.version: " + self.spec.version + " is not allowed; allowed: '),
        messageExpression,
      );
      assert.ok(
        messageExpression.includes(
          ' ? "members run " + oldSelf.status.currentVersion : "was " + oldSelf.spec.version)',
        ),
        messageExpression,
      );
    }
    const texts = rules.map((r) => r.messageExpression ?? '');
    const find = (text: string) => {
      const found = rules.find((r) => r.messageExpression?.includes(text));
      assert.ok(found, `${text} in\n${texts.join('\n')}`);
      return found;
    };
    find('" or newer (" + ');
    find('"; etcd does not support downgrades)"');
    find('allowed: at most one minor version above " + ');
    find('"; etcd upgrades one minor at a time)"');
    const minPatch = find('3.5.26 or newer first (etcd\'s minimum before 3.6; " + ');
    assert.match(minPatch.rule, /oldSelf\.spec\.version\)\.split\('\.'\)\[2\]\) < 26/);
    const status = root.properties!.status!.properties!.currentVersion!;
    assert.equal(status.maxLength, 32, 'bounded, so the rules that read it stay cheap');
  });

  it('GIVEN both CRDs THEN every CEL rule carries a message a user can read', () => {
    const rules: Array<{ rule: string; message: string }> = [];
    const walk = (s: JsonSchema): void => {
      rules.push(...(s['x-kubernetes-validations'] ?? []));
      for (const child of Object.values(s.properties ?? {})) walk(child);
      if (s.items) walk(s.items);
    };
    walk(openApiSchema(etcdClusterCrd()));
    walk(openApiSchema(etcdRestoreCrd()));
    assert.ok(rules.length >= 10, `expected the rules of both kinds, got ${rules.length}`);
    for (const { rule, message } of rules) assert.match(message, /^[a-zA-Z].{20,}/, `rule ${rule}`);
  });
});

// Test helpers for synthesized constructs: charts, object lookup, YAML snapshots kept beside the sources.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Chart, Testing, Yaml } from 'cdk8s';
import { EtcdOperator } from '../../../constructs/etcd-operator.js';
import { repoRoot } from '../../env/binaries.js';

// biome-ignore lint/suspicious/noExplicitAny: synthesized manifests are untyped JSON
export type Manifest = Record<string, any>;

/**
 * A chart in a fresh app, with a namespace unless `namespace` is null. Not `Testing.app()`: it makes a temp dir per
 * call and never removes it (1,700 of them after a day of runs). These apps are never `synth()`ed to disk (tests
 * read `Testing.synth(chart)` in memory), so their outdir is a path nothing creates.
 */
export function testChart(namespace: string | null = 'etcd-test'): Chart {
  const app = new App({ outdir: join(repoRoot, 'build', 'never-synthesized') });
  return new Chart(app, 'test', namespace === null ? {} : { namespace });
}

/**
 * A chart for clusters, as `testChart`, in an app that also holds an EtcdOperator (in the default namespace
 * `etcd-gitops-system`, in a chart of its own, so `synth(chart)` shows only the clusters' objects).
 */
export function clusterChart(namespace: string | null = 'etcd-test'): Chart {
  const chart = testChart(namespace);
  new EtcdOperator(new Chart(App.of(chart), 'operator'), 'operator', { crds: false });
  return chart;
}

export function synth(chart: Chart): Manifest[] {
  return Testing.synth(chart) as Manifest[];
}

/** The one object of `kind` (and `name`, when given); fails the test when there is not exactly one. */
export function only(objects: Manifest[], kind: string, name?: string): Manifest {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
  assert.equal(found.length, 1, `expected one ${kind}${name ? ` named ${name}` : ''}, found ${found.length}`);
  return found[0] as Manifest;
}

/**
 * Compares `objects` as YAML with `test/unit/<dir>/__snapshots__/<name>.yaml`. A missing or different snapshot
 * fails; `UPDATE_SNAPSHOTS=1` rewrites it (review the diff before committing).
 */
export function matchSnapshot(dir: string, name: string, objects: Manifest[]): void {
  const folder = join(repoRoot, 'test', 'unit', dir, '__snapshots__');
  const file = join(folder, `${name}.yaml`);
  const actual = Yaml.stringify(...objects);
  if (process.env.UPDATE_SNAPSHOTS === '1') {
    mkdirSync(folder, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.ok(existsSync(file), `snapshot ${file} is missing: run with UPDATE_SNAPSHOTS=1 and review it`);
  assert.equal(actual, readFileSync(file, 'utf8'), `snapshot ${name} differs (UPDATE_SNAPSHOTS=1 to accept)`);
}

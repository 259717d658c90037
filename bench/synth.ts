// Synth time of our app and of apps with 1, 10 and 100 etcd clusters, beside the floor for the same objects,
// measured in the same run: the very manifests ours synthesized, added to bare charts as plain cdk8s ApiObjects
// (what emitting those objects costs without any construct logic; a cdk8s-plus chart of them does more). Medians
// over several runs; a table on stdout, JSON in bench/results/synth.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiObject, App, Chart } from 'cdk8s';
import { EtcdCluster } from '../constructs/etcd-cluster.js';
import { EtcdOperator } from '../constructs/etcd-operator.js';
import { buildApp } from '../src/app.js';
import { median } from './stats.js';

const results = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');

interface Row {
  case: string;
  objects: number;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  baselineMs: number;
  ratio: number;
}

/** Builds and synthesizes an app in memory; returns milliseconds and the number of objects. */
function timeSynth(build: () => App): { ms: number; objects: number } {
  const start = process.hrtime.bigint();
  const app = build();
  const yaml = app.synthYaml();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ms, objects: yaml.split(/^---$/m).filter((doc) => doc.trim()).length };
}

function clustersApp(count: number): App {
  const app = new App({ outdir: 'unused' });
  new EtcdOperator(new Chart(app, 'operator'), 'operator');
  const chart = new Chart(app, 'clusters', { namespace: 'etcd' });
  for (let i = 0; i < count; i++) {
    new EtcdCluster(chart, `c${i}`, { version: '3.6.16' }).addBackupSchedule({
      schedule: '0 */6 * * *',
      bucket: 'etcd-backups',
      credentialsSecretName: 'backup-s3',
    });
  }
  return app;
}

/** Each chart's manifests as our app synthesizes them (each already carries its namespace). */
function manifestsOf(app: App): Record<string, unknown>[][] {
  return app.charts.map((chart) => chart.toJson() as Record<string, unknown>[]);
}

/** The floor: the same manifests as plain ApiObjects in as many bare charts. */
function replayApp(charts: readonly Record<string, unknown>[][]): App {
  const app = new App({ outdir: 'unused' });
  charts.forEach((manifests, c) => {
    const chart = new Chart(app, `chart${c}`);
    manifests.forEach((manifest, i) => {
      new ApiObject(chart, `o${i}`, manifest as ConstructorParameters<typeof ApiObject>[2]);
    });
  });
  return app;
}

function measure(name: string, build: () => App, runs: number): Row {
  timeSynth(build); // warm-up: module loading and JIT
  const { objects } = timeSynth(build);
  const charts = manifestsOf(build());
  const floor = () => replayApp(charts);
  const same = floor().synthYaml() === build().synthYaml();
  if (!same) throw new Error(`synth bench: the floor of ${name} does not synthesize the same YAML as ours`);
  timeSynth(floor);
  const ours: number[] = [];
  const bare: number[] = [];
  for (let r = 0; r < runs; r++) {
    ours.push(timeSynth(build).ms);
    bare.push(timeSynth(floor).ms);
  }
  const medianMs = median(ours);
  const baselineMs = median(bare);
  return {
    case: name,
    objects,
    runs,
    medianMs,
    minMs: Math.min(...ours),
    maxMs: Math.max(...ours),
    baselineMs,
    ratio: medianMs / baselineMs,
  };
}

export async function run(): Promise<void> {
  const rows = [
    measure('our app (dist/)', () => buildApp('unused'), 9),
    measure('1 cluster', () => clustersApp(1), 9),
    measure('10 clusters', () => clustersApp(10), 7),
    measure('100 clusters', () => clustersApp(100), 5),
  ];
  console.log('\nsynth time (median ms; baseline: the same manifests as plain ApiObjects in bare charts)');
  console.log('case               objects  runs   ours ms  baseline ms  ratio');
  for (const r of rows) {
    console.log(
      `${r.case.padEnd(18)} ${String(r.objects).padStart(7)} ${String(r.runs).padStart(5)} ${r.medianMs.toFixed(1).padStart(9)} ${r.baselineMs.toFixed(1).padStart(12)} ${r.ratio.toFixed(2).padStart(6)}`,
    );
  }
  mkdirSync(results, { recursive: true });
  const file = join(results, 'synth.json');
  writeFileSync(
    file,
    `${JSON.stringify({ bench: 'synth', node: process.version, date: new Date().toISOString(), rows }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
}

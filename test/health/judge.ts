// What Argo CD (our Lua), kstatus and Flux (their Go libraries) make of every object of a recording, and where that
// departs from what the recording's stages allow (test/health/expectations.ts).
import { join } from 'node:path';
import { repoRoot } from '../env/binaries.js';
import { argoCdHealth } from './argocd-vm.js';
import { expectations } from './expectations.js';
import { computeHealth, fluxHealthCheckExprs } from './kstatus.js';
import { runHealthScriptOver } from './lua.js';
import { departures, type Recording, type Verdicts } from './recorded.js';

const scripts = {
  EtcdCluster: join(repoRoot, 'docs', 'gitops', 'health-etcdcluster.lua'),
  EtcdRestore: join(repoRoot, 'docs', 'gitops', 'health-etcdrestore.lua'),
} as const;
type Kind = keyof typeof scripts;

function byKind<T>(recording: Recording, evaluate: (kind: Kind, objects: unknown[]) => T[]): T[] {
  const results: T[] = new Array(recording.entries.length);
  for (const kind of Object.keys(scripts) as Kind[]) {
    const indexes = recording.entries.flatMap((entry, index) => (entry.object.kind === kind ? [index] : []));
    const verdicts = evaluate(
      kind,
      indexes.map((index) => recording.entries[index]?.object),
    );
    indexes.forEach((entryIndex, i) => {
      results[entryIndex] = verdicts[i] as T;
    });
  }
  return results;
}

/** Argo CD's health (status) of each entry, by docs/gitops/health-*.lua under Lua 5.1. */
export function argoVerdicts(recording: Recording): string[] {
  return byKind(recording, (kind, objects) =>
    runHealthScriptOver(scripts[kind], objects).map((health) => health.status),
  );
}

/**
 * Argo CD's health of each entry as Argo CD itself computes it (its settings manager reading argocd-cm.yaml, its Lua
 * VM running our scripts), and as Lua 5.1 computes it from the same scripts: status and message of each.
 */
export function argoVmAndLuaVerdicts(recording: Recording): {
  vm: { status: string; message: string }[];
  lua: { status: string; message: string }[];
} {
  const kinds = new Set(Object.keys(scripts));
  const vm = argoCdHealth(recording.entries.map((entry) => entry.object)).map((health, index) =>
    kinds.has(recording.entries[index]?.object.kind ?? '') ? health : { status: '', message: '' },
  );
  const lua = byKind(recording, (kind, objects) => runHealthScriptOver(scripts[kind], objects));
  return { vm, lua };
}

/** kstatus (upstream and Flux's fork) and Flux's CEL verdict with docs/gitops/flux.yaml's expressions. */
export function toolVerdicts(recording: Recording): {
  kstatus: string[];
  fluxKstatus: string[];
  flux: string[];
} {
  const results = byKind(recording, (kind, objects) => computeHealth(objects, fluxHealthCheckExprs(kind)));
  return {
    kstatus: results.map((result) => result.kstatus),
    fluxKstatus: results.map((result) => result.fluxKstatus),
    flux: results.map((result) => result.flux ?? `Error(${result.fluxError})`),
  };
}

/** The departures of `recording` from its scenario's expectations, for the readers computed. */
export function judge(recording: Recording, verdicts: Partial<Verdicts>): string[] {
  const scenario = expectations[recording.scenario];
  if (!scenario) return [`scenario ${recording.scenario}: no expectations in test/health/expectations.ts`];
  return departures(recording, scenario, verdicts);
}

/**
 * Fails unless Argo CD, kstatus and Flux read every object of `recording` as its stage allows (and kstatus and
 * Flux's fork of it agree); returns the verdicts counted, for a diagnostic line.
 */
export function assertHealthAsExpected(recording: Recording): string {
  const argo = argoVerdicts(recording);
  const tools = toolVerdicts(recording);
  const forks = tools.kstatus.flatMap((verdict, index) =>
    verdict === tools.fluxKstatus[index]
      ? []
      : [`entry ${index}: ${verdict} vs Flux's fork ${tools.fluxKstatus[index]}`],
  );
  const problems = [...forks, ...judge(recording, { argo, kstatus: tools.kstatus, flux: tools.flux })];
  if (problems.length > 0) {
    throw new Error(`${recording.scenario}: ${problems.length} departures:\n${problems.join('\n')}`);
  }
  const count = (verdicts: string[]) => {
    const counts = new Map<string, number>();
    for (const verdict of verdicts) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
    return [...counts].map(([verdict, n]) => `${verdict} ${n}`).join(', ');
  };
  return `${recording.scenario}: ${recording.entries.length} objects in ${new Set(recording.stages).size} stages; Argo CD ${count(argo)}; kstatus ${count(tools.kstatus)}; Flux ${count(tools.flux)}`;
}

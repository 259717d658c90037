// What kstatus and Flux's CEL health checks say about objects, by the real Go libraries: the health-check program
// of test/env/bin-build/health-check (built by `npm run binaries`), and the expressions users copy from
// docs/gitops/flux.yaml.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Yaml } from 'cdk8s';
import { healthCheckBinary, repoRoot } from '../env/binaries.js';
import { throughJsonLines } from './json-lines.js';

/** One Kustomization `spec.healthCheckExprs` entry (Flux RFC 0009). */
export interface HealthCheckExprs {
  readonly apiVersion: string;
  readonly kind: string;
  readonly current: string;
  readonly inProgress?: string;
  readonly failed?: string;
}

export interface ToolHealth {
  /** sigs.k8s.io/cli-utils kstatus `Compute`. */
  readonly kstatus: string;
  readonly kstatusMessage: string;
  /** The same function of Flux's fork, github.com/fluxcd/cli-utils. */
  readonly fluxKstatus: string;
  /** Flux's CEL StatusEvaluator with the expressions given, when given. */
  readonly flux?: string;
  readonly fluxError?: string;
}

/** The `healthCheckExprs` of `kind` in docs/gitops/flux.yaml's Kustomization `etcd-gitops`. */
export function fluxHealthCheckExprs(kind: 'EtcdCluster' | 'EtcdRestore'): HealthCheckExprs {
  const docs = Yaml.load(join(repoRoot, 'docs', 'gitops', 'flux.yaml')) as {
    kind?: string;
    metadata?: { name?: string };
    spec?: { healthCheckExprs?: HealthCheckExprs[] };
  }[];
  const kustomization = docs.find(
    (doc) => doc?.kind === 'Kustomization' && doc.metadata?.name === 'etcd-gitops',
  );
  const exprs = kustomization?.spec?.healthCheckExprs?.find((entry) => entry.kind === kind);
  assert.ok(
    exprs,
    `docs/gitops/flux.yaml: the etcd-gitops Kustomization has no healthCheckExprs for ${kind}`,
  );
  return exprs;
}

/** kstatus (upstream and Flux's fork) and, given `exprs`, Flux's CEL evaluator, for each object in order. */
export function computeHealth(objects: readonly unknown[], exprs?: HealthCheckExprs): ToolHealth[] {
  if (objects.length === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), 'etcd-gitops-kstatus-'));
  try {
    const args: string[] = [];
    if (exprs) {
      const file = join(dir, 'exprs.json');
      writeFileSync(file, JSON.stringify(exprs));
      args.push(`--exprs=${file}`);
    }
    return throughJsonLines<ToolHealth>(healthCheckBinary(), args, objects);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

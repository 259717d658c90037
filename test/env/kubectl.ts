// Runs the pinned kubectl (never the machine's /usr/bin/kubectl) against one kubeconfig.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { kubernetesBinary } from './binaries.js';
import { childEnv } from './process-group.js';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  /** Resolve with a non-zero exit code instead of throwing. @default false */
  allowFailure?: boolean;
}

/**
 * `kubectl wait --for=condition=...` on an object whose `.status.conditions` is not written yet (a CRD applied a
 * moment ago) fails at once with this instead of waiting (seen in CI with kubectl 1.34).
 */
const CONDITIONS_NOT_YET = /\.status\.conditions accessor error: <nil> is of the type <nil>/;

export async function kubectl(
  kubeconfigPath: string,
  args: string[],
  options: KubectlOptions = {},
): Promise<KubectlResult> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await runKubectl(kubeconfigPath, args, { ...options, allowFailure: true });
    const retry = args[0] === 'wait' && result.code !== 0 && CONDITIONS_NOT_YET.test(result.stderr);
    if (retry && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    if (result.code !== 0 && !options.allowFailure) {
      throw new Error(
        `kubectl ${args.join(' ')} exited with ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`,
      );
    }
    return result;
  }
}

/**
 * kubectl's flags for `kubeconfigPath`: its discovery and HTTP cache beside the kubeconfig, in the environment's own
 * directory (removed with it), not in ~/.kube/cache: there every environment's API server, each on a port another
 * environment may have used before, added to one cache that grew by hundreds of MiB a run and outlived the tests.
 */
function kubectlFlags(kubeconfigPath: string): string[] {
  return [`--kubeconfig=${kubeconfigPath}`, `--cache-dir=${join(dirname(kubeconfigPath), 'kubectl-cache')}`];
}

function runKubectl(kubeconfigPath: string, args: string[], options: KubectlOptions): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubernetesBinary('kubectl'), [...kubectlFlags(kubeconfigPath), ...args], {
      env: childEnv({ KUBECONFIG: kubeconfigPath }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = {
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        code: code ?? -1,
      };
      resolve(result);
    });
    child.stdin.end(options.input ?? '');
  });
}

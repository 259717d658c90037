// The Prometheus Operator's CRDs for PodMonitor, ServiceMonitor and PrometheusRule (taken from its module by
// bin-build/build.sh), applied to an API server so that monitoring objects can be stored there.
import { readFileSync } from 'node:fs';
import { prometheusOperatorCrds } from '../binaries.js';
import { kubectl } from '../kubectl.js';

/** Applies the three CRDs and waits until each is Established. */
export async function applyMonitoringCrds(kubeconfigPath: string): Promise<void> {
  for (const file of prometheusOperatorCrds()) {
    await kubectl(kubeconfigPath, ['apply', '--server-side', '-f', '-'], {
      input: readFileSync(file, 'utf8'),
    });
  }
  await kubectl(kubeconfigPath, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/podmonitors.monitoring.coreos.com',
    'crd/servicemonitors.monitoring.coreos.com',
    'crd/prometheusrules.monitoring.coreos.com',
  ]);
}

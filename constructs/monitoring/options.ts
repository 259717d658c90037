// What every monitoring object our constructs add takes.

export interface MonitoringOptions {
  /**
   * Labels on the PodMonitor, ServiceMonitor or PrometheusRule: the ones your Prometheus selects them by, e.g.
   * `{ release: 'kube-prometheus-stack' }`.
   * @default - none
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Scrape interval (a Prometheus duration); monitors only.
   * @default '30s'
   */
  readonly interval?: string;
}

export const DEFAULT_SCRAPE_INTERVAL = '30s';
const PROM_DURATION = /^([0-9]+(ms|s|m|h|d|w|y))+$/;

/** Throws unless `interval` is a Prometheus duration. */
export function validateInterval(interval: string): string {
  if (!PROM_DURATION.test(interval)) {
    throw new Error(`'interval' must be a Prometheus duration such as 15s, 30s or 1m, got '${interval}'`);
  }
  return interval;
}

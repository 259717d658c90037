// What every monitoring object our constructs add takes.

/** What every monitoring object the constructs add takes (PodMonitor, ServiceMonitor, PrometheusRule). */
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

/** What `addPrometheusRule()` takes. */
export interface PrometheusRuleOptions extends MonitoringOptions {
  /**
   * How long an alert's condition must hold before it fires (the rule's `for:`), by alert name, e.g.
   * `{ EtcdMembersDown: '10m' }`; alerts not named keep theirs (`CLUSTER_ALERT_PENDING_FOR`,
   * `OPERATOR_ALERT_PENDING_FOR`). A Prometheus duration; `0s` fires at the first evaluation.
   * @default - each alert's own
   */
  readonly for?: Readonly<Record<string, string>>;
}

/**
 * `defaults` with `overrides` applied; throws, naming the field and value, for an alert not among `defaults` or a
 * value that is not a Prometheus duration.
 */
export function pendingDurations<T extends Readonly<Record<string, string>>>(
  where: string,
  defaults: T,
  overrides: Readonly<Record<string, string>> = {},
): T {
  for (const [alert, value] of Object.entries(overrides)) {
    if (!(alert in defaults)) {
      throw new Error(
        `${where}: 'for.${alert}' names no alert of this rule; its alerts are ${Object.keys(defaults).join(', ')}`,
      );
    }
    if (typeof value !== 'string' || !PROM_DURATION.test(value)) {
      throw new Error(
        `${where}: 'for.${alert}' must be a Prometheus duration such as 0s, 30s, 5m or 1h, got '${String(value)}'`,
      );
    }
  }
  return { ...defaults, ...overrides };
}

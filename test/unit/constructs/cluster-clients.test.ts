// Clients of a cluster: allowFrom() with label selectors and cdk8s-plus workloads, at any time before synth; the
// connection and the client Service as objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Chart } from 'cdk8s';
import { Deployment, Namespaces, Pods } from 'cdk8s-plus-27';
import { EtcdCluster, type EtcdPodSelector } from '../../../constructs/index.js';
import { clusterChart, type Manifest, only, synth } from './helpers.js';

/** The `from` peers of the client-port rule, after the controller's, the backups' and the defrag Jobs'. */
function clientPeers(objects: Manifest[]): Manifest[] {
  return only(objects, 'NetworkPolicy', 'main').spec.ingress[1].from.slice(4);
}

const container = { image: 'registry.local/api:1', securityContext: { ensureNonRoot: false } };

describe('EtcdCluster clients', () => {
  it('GIVEN a label selector allowed after construction WHEN synthesized THEN the NetworkPolicy lets it reach the client port', () => {
    // GIVEN
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', {
      version: '3.6.16',
      clients: [{ podSelector: { app: 'first' } }],
    });
    // WHEN
    cluster.allowFrom({ podSelector: { app: 'api' } }, { namespaceSelector: { team: 'payments' } });
    // THEN
    assert.deepEqual(clientPeers(synth(chart)), [
      { podSelector: { matchLabels: { app: 'first' } } },
      { podSelector: { matchLabels: { app: 'api' } } },
      { namespaceSelector: { matchLabels: { team: 'payments' } }, podSelector: {} },
    ]);
  });

  it('GIVEN a cdk8s-plus Deployment in the same chart WHEN allowed THEN its Pods are selected by its own selector labels', () => {
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    const api = new Deployment(chart, 'api', { containers: [container] });
    cluster.allowFrom(api);
    const objects = synth(chart);
    const matchLabels = only(objects, 'Deployment').spec.selector.matchLabels;
    assert.deepEqual(clientPeers(objects), [
      {
        podSelector: { matchLabels },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'db' } },
      },
    ]);
  });

  it('GIVEN a Deployment in another namespace WHEN allowed THEN the peer selects that namespace by name', () => {
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    const apps = new Chart(App.of(chart), 'apps', { namespace: 'apps' });
    cluster.allowFrom(new Deployment(apps, 'api', { containers: [container] }));
    const [peer] = clientPeers(synth(chart));
    assert.deepEqual(peer?.namespaceSelector, { matchLabels: { 'kubernetes.io/metadata.name': 'apps' } });
    assert.ok(peer?.podSelector.matchLabels['cdk8s.io/metadata.addr']);
  });

  it('GIVEN Pods selected by labels in two named namespaces WHEN allowed THEN there is one peer per namespace', () => {
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    const namespaces = Namespaces.select(chart, 'teams', { names: ['a', 'b'] });
    cluster.allowFrom(Pods.select(chart, 'workers', { labels: { role: 'worker' }, namespaces }));
    assert.deepEqual(clientPeers(synth(chart)), [
      {
        podSelector: { matchLabels: { role: 'worker' } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'a' } },
      },
      {
        podSelector: { matchLabels: { role: 'worker' } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'b' } },
      },
    ]);
  });

  it('GIVEN a Pod selector of another cdk8s-plus major (typed by shape, EtcdPodSelector) with label expressions WHEN allowed THEN its labels, expressions and namespace selector render as given', () => {
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    const selector = (rendered: object) => ({ _toKube: () => rendered });
    const other: EtcdPodSelector = {
      toPodSelectorConfig: () => ({
        labelSelector: selector({
          matchLabels: { app: 'api' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'batch'] }],
        }),
        namespaces: { labelSelector: selector({ matchLabels: { team: 'payments' } }) },
      }),
    };
    cluster.allowFrom(other);
    assert.deepEqual(clientPeers(synth(chart)), [
      {
        podSelector: {
          matchLabels: { app: 'api' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'batch'] }],
        },
        namespaceSelector: { matchLabels: { team: 'payments' } },
      },
    ]);
  });

  it('GIVEN a cluster WHEN its connection is read THEN it names the URL, Service, namespace and port (no tls)', () => {
    const cluster = new EtcdCluster(clusterChart('db'), 'main', { version: '3.6.16' });
    assert.deepEqual(cluster.connection, {
      url: 'http://main-client.db.svc:2379',
      serviceName: 'main-client',
      namespace: 'db',
      port: 2379,
      scheme: 'http',
    });
  });

  it('GIVEN a cluster THEN its client and peer Services are objects with their names and ports', () => {
    const cluster = new EtcdCluster(clusterChart('db'), 'main', { version: '3.6.16' });
    assert.equal(cluster.clientService.name, 'main-client');
    assert.equal(cluster.clientService.toJson().spec.ports[0].port, 2379);
    assert.equal(cluster.peerService.name, 'main-peer');
    assert.equal(cluster.peerService.toJson().spec.clusterIP, 'None');
  });
});

describe('EtcdCluster clients outside the Pod network (ipBlock)', () => {
  it('GIVEN an ipBlock client WHEN synthesized THEN the client-port rule admits that block, with its exceptions', () => {
    // GIVEN
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', {
      version: '3.6.16',
      clients: [{ ipBlock: { cidr: '192.0.2.0/24', except: ['192.0.2.128/25'] } }],
    });
    // WHEN
    cluster.allowFrom({ ipBlock: { cidr: 'fd00::7/128' } });
    // THEN
    assert.deepEqual(clientPeers(synth(chart)), [
      { ipBlock: { cidr: '192.0.2.0/24', except: ['192.0.2.128/25'] } },
      { ipBlock: { cidr: 'fd00::7/128' } },
    ]);
  });

  it('fails when an ipBlock cidr is not a CIDR block, naming the prop and the value', () => {
    const chart = clusterChart('db');
    assert.throws(
      () =>
        new EtcdCluster(chart, 'main', { version: '3.6.16', clients: [{ ipBlock: { cidr: '10.0.0.1' } }] }),
      /^Error: 'clients\[0\]\.ipBlock\.cidr' must be a CIDR block: .*, got '10\.0\.0\.1'$/,
    );
    const cluster = new EtcdCluster(chart, 'other', { version: '3.6.16' });
    assert.throws(
      () => cluster.allowFrom({ podSelector: { app: 'a' } }, { ipBlock: { cidr: '10.0.0.0/33' } }),
      /^Error: 'allowFrom\(\) argument 1\.ipBlock\.cidr' must be a CIDR block: .*, got '10\.0\.0\.0\/33'$/,
    );
    assert.throws(
      () => cluster.allowMetricsFrom({ ipBlock: { cidr: '10.0.0.0/8', except: ['ten/9'] } }),
      /^Error: 'allowMetricsFrom\(\) argument 0\.ipBlock\.except\[0\]' must be a CIDR block: .*, got 'ten\/9'$/,
    );
  });

  it('fails when a client has an ipBlock and a label selector', () => {
    assert.throws(
      () =>
        new EtcdCluster(clusterChart('db'), 'main', {
          version: '3.6.16',
          metricsFrom: [{ podSelector: { app: 'prometheus' }, ipBlock: { cidr: '10.0.0.0/8' } }],
        }),
      /^Error: 'metricsFrom\[0\]' has an ipBlock and a label selector: .*two clients$/,
    );
  });

  it('fails when a client selects nothing ({}), instead of writing a peer the API server refuses', () => {
    assert.throws(
      () => new EtcdCluster(clusterChart('db'), 'main', { version: '3.6.16', clients: [{}] }),
      /^Error: 'clients\[0\]' selects nothing: give podSelector .*, namespaceSelector .* or ipBlock .*, got \{\}$/,
    );
  });
});

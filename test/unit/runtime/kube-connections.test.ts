// reuseConnections (controller/runtime/kube.ts): API calls share kept-alive connections, against a local HTTPS
// server that counts TLS handshakes and records each call's bearer token.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { reuseConnections } from '../../../controller/runtime/kube.js';
import { createCa, issueLeaf, type TestCa } from '../../env/etcd-certs.js';

describe('reuseConnections', () => {
  let ca: TestCa;
  let server: Server;
  let url: string;
  let handshakes = 0;
  const tokens: string[] = [];

  before(async () => {
    ca = await createCa('test-ca');
    const leaf = await issueLeaf(ca, { commonName: 'api', ipAddresses: ['127.0.0.1'], usages: ['server'] });
    server = createServer({ cert: leaf.cert, key: leaf.key }, (request, response) => {
      tokens.push(String(request.headers.authorization));
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    server.on('secureConnection', () => {
      handshakes += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const kubeConfigWith = (token: string) => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [
        { name: 'c', server: url, caData: Buffer.from(ca.cert).toString('base64'), skipTLSVerify: false },
      ],
      users: [{ name: 'u', token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return kubeConfig;
  };
  const threeCalls = async (kubeConfig: KubeConfig) => {
    const api = kubeConfig.makeApiClient(CoreV1Api);
    for (let i = 0; i < 3; i += 1) await api.listNamespace();
  };

  it('GIVEN the client as it comes WHEN three calls are made one after another THEN three TLS handshakes', async () => {
    handshakes = 0;
    await threeCalls(kubeConfigWith('plain'));
    assert.equal(handshakes, 3);
  });

  it('GIVEN reuseConnections WHEN three calls are made one after another THEN one TLS handshake, each call with its token', async () => {
    handshakes = 0;
    tokens.length = 0;
    const kubeConfig = reuseConnections(kubeConfigWith('first'));
    await threeCalls(kubeConfig);
    assert.equal(handshakes, 1);
    // A token read afresh for each call (as the client re-reads a projected ServiceAccount token) still goes out.
    const user = kubeConfig.getCurrentUser() as { token?: string };
    user.token = 'second';
    await kubeConfig.makeApiClient(CoreV1Api).listNamespace();
    assert.equal(handshakes, 1);
    assert.deepEqual(tokens, ['Bearer first', 'Bearer first', 'Bearer first', 'Bearer second']);
  });
});

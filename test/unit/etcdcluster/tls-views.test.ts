// Table tests of the TLS Secret checks (docs/design/tls.md, "Validation"): tls-views.ts judges each Secret of
// spec.tls (present, its keys, key matching, valid now, signed by the CA that must trust it) and hands the controller
// its client certificate; tls-checks.ts turns a problem, a certificate whose DNS names miss a member (or the next
// member, or the Service), or a TLS side added to or removed from running members into a step-3 refusal.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { peerDnsNames, servingDnsNames } from '../../../constructs/conventions/tls.js';
import { planMembership } from '../../../controller/etcdcluster/plan.js';
import { checkTls } from '../../../controller/etcdcluster/tls-checks.js';
import { covers, type SecretData, tlsFindings } from '../../../controller/etcdcluster/tls-views.js';
import type { PlanInput, TlsSecretView } from '../../../controller/etcdcluster/types.js';
import { forbiddenSecretMessage } from '../../../controller/runtime/secrets.js';
import { createCa, issueLeaf, type TestCa, type TestLeaf, tlsSecretData } from '../../env/etcd-certs.js';
import { steady } from './fixtures.js';

const TLS = {
  client: { secretName: 'demo-server-tls', clientSecretName: 'demo-client-tls' },
  peer: { secretName: 'demo-peer-tls' },
};
/** Taken once the certificates exist: their notBefore is the second they were issued in. */
let NOW = new Date();

const data = (ca: TestCa, leaf: TestLeaf): SecretData =>
  Object.fromEntries(
    Object.entries(tlsSecretData(ca, leaf)).map(([key, value]) => [key, Buffer.from(value)]),
  );

describe('TLS Secrets as the controller judges them', () => {
  let clientCa: TestCa;
  let peerCa: TestCa;
  let otherCa: TestCa;
  let serving: TestLeaf;
  let client: TestLeaf;
  let peer: TestLeaf;
  let good: Map<string, SecretData>;
  before(async () => {
    [clientCa, peerCa, otherCa] = await Promise.all([
      createCa('client-ca'),
      createCa('peer-ca'),
      createCa('other'),
    ]);
    [serving, client, peer] = await Promise.all([
      issueLeaf(clientCa, { commonName: 'demo', dnsNames: servingDnsNames('demo', 'ns') }),
      issueLeaf(clientCa, { commonName: 'etcd-gitops', usages: ['client'] }),
      issueLeaf(peerCa, { commonName: 'demo-peer', dnsNames: peerDnsNames('demo', 'ns') }),
    ]);
    NOW = new Date();
    good = new Map([
      ['demo-server-tls', data(clientCa, serving)],
      ['demo-client-tls', data(clientCa, client)],
      ['demo-peer-tls', data(peerCa, peer)],
    ]);
  });
  const withSecret = (name: string, value: SecretData) => new Map([...good, [name, value]]);
  const problemOf = (findings: ReturnType<typeof tlsFindings>, field: string) =>
    findings.secrets.find((secret) => secret.field === field)?.problem;

  it('GIVEN usable Secrets THEN no problem, the DNS names are read, and the controller gets the client certificate with the CA of the serving certificate', () => {
    const findings = tlsFindings(TLS, good, NOW);
    assert.deepEqual(
      findings.secrets.map((secret) => [secret.field, secret.problem, secret.covers]),
      [
        ['spec.tls.client.secretName', undefined, 'serving'],
        ['spec.tls.client.clientSecretName', undefined, 'none'],
        ['spec.tls.peer.secretName', undefined, 'peer'],
      ],
    );
    assert.deepEqual(findings.secrets[0]?.dnsNames, servingDnsNames('demo', 'ns'));
    assert.equal(findings.client?.certChain.toString(), client.cert);
    assert.equal(findings.client?.rootCertificate.toString(), clientCa.cert);
  });

  it('GIVEN no spec.tls THEN nothing is judged', () => {
    assert.deepEqual(tlsFindings(undefined, new Map(), NOW), { secrets: [] });
  });

  const cases: { given: string; secrets: () => Map<string, SecretData>; field: string; problem: RegExp }[] = [
    {
      given: 'the serving Secret does not exist',
      secrets: () => withSecret('demo-server-tls', undefined),
      field: 'spec.tls.client.secretName',
      problem: /^no such Secret; cert-manager may still be issuing it$/,
    },
    {
      // The literal message: the controller's RBAC lacks the Role the EtcdCluster construct makes.
      given: 'the controller may not read the serving Secret (403)',
      secrets: () =>
        withSecret('demo-server-tls', { forbidden: forbiddenSecretMessage('ns', 'demo-server-tls', 'demo') }),
      field: 'spec.tls.client.secretName',
      problem:
        /^the controller may not read Secret demo-server-tls in namespace ns \(403 Forbidden\): grant its ServiceAccount get on Secrets there, as the Role demo-etcd-gitops-controller the EtcdCluster construct synthesizes does$/,
    },
    {
      given: 'the peer Secret lacks ca.crt',
      secrets: () => {
        const { 'ca.crt': _, ...rest } = good.get('demo-peer-tls') as Record<string, Buffer>;
        return withSecret('demo-peer-tls', rest);
      },
      field: 'spec.tls.peer.secretName',
      problem: /^the Secret lacks ca\.crt$/,
    },
    {
      given: "the client Secret's tls.key belongs to another certificate",
      secrets: () =>
        withSecret('demo-client-tls', {
          ...(good.get('demo-client-tls') as Record<string, Buffer>),
          'tls.key': Buffer.from(serving.key),
        }),
      field: 'spec.tls.client.clientSecretName',
      problem: /^tls\.key is not the key of tls\.crt$/,
    },
    {
      given: "the client Secret's tls.crt is empty",
      secrets: () => withSecret('demo-client-tls', data(clientCa, { ...client, cert: '' })),
      field: 'spec.tls.client.clientSecretName',
      problem: /lacks tls\.crt/,
    },
    {
      given: 'tls.crt is not PEM',
      secrets: () =>
        withSecret('demo-peer-tls', {
          ...(good.get('demo-peer-tls') as Record<string, Buffer>),
          'tls.crt': Buffer.from('not a certificate'),
        }),
      field: 'spec.tls.peer.secretName',
      problem: /^tls\.crt is not a PEM certificate/,
    },
  ];
  for (const c of cases)
    it(`GIVEN ${c.given} THEN ${c.field} has the problem ${c.problem}`, () => {
      const findings = tlsFindings(TLS, c.secrets(), NOW);
      assert.match(problemOf(findings, c.field) ?? '(none)', c.problem);
    });

  it('GIVEN a client certificate from another CA THEN it is not signed by the CA members trust, and the serving certificate is not trusted by the client Secret', async () => {
    const foreign = await issueLeaf(otherCa, { commonName: 'etcd-gitops', usages: ['client'] });
    const findings = tlsFindings(TLS, withSecret('demo-client-tls', data(otherCa, foreign)), new Date());
    assert.match(
      problemOf(findings, 'spec.tls.client.clientSecretName') ?? '',
      /tls\.crt \(issuer CN=other\) is not signed by the ca\.crt of spec\.tls\.client\.secretName, which has to trust it/,
    );
    assert.match(
      problemOf(findings, 'spec.tls.client.secretName') ?? '',
      /not signed by the ca\.crt of spec\.tls\.client\.clientSecretName/,
    );
  });

  it('GIVEN an expired certificate THEN its Secret says when it expired', () => {
    const later = new Date(NOW.getTime() + 31 * 24 * 3600 * 1000);
    assert.match(
      problemOf(tlsFindings(TLS, good, later), 'spec.tls.peer.secretName') ?? '',
      /^tls\.crt expired at /,
    );
  });

  it('GIVEN a CA bundle holding another CA first THEN the certificate is still verified (a rotation bundle)', () => {
    const peerData = good.get('demo-peer-tls') as Record<string, Buffer>;
    const bundle = Buffer.from(`${otherCa.cert}${peerCa.cert}`);
    const findings = tlsFindings(TLS, withSecret('demo-peer-tls', { ...peerData, 'ca.crt': bundle }), NOW);
    assert.equal(problemOf(findings, 'spec.tls.peer.secretName'), undefined);
  });
});

describe('covers: a DNS name of a certificate and a host', () => {
  const table: [string, string, boolean][] = [
    ['*.demo-peer.ns.svc', 'demo-0.demo-peer.ns.svc', true],
    ['*.demo-peer.ns.svc', 'demo-peer.ns.svc', false],
    ['*.demo-peer.ns.svc', 'a.b.demo-peer.ns.svc', false],
    ['demo-client.ns.svc', 'demo-client.ns.svc', true],
    ['Demo-Client.ns.svc', 'demo-client.ns.svc', true],
    ['demo-client.ns.svc', 'demo-client.ns', false],
  ];
  for (const [name, host, expected] of table)
    it(`GIVEN ${name} and ${host} THEN ${expected}`, () => assert.equal(covers(name, host), expected));
});

describe('checkTls: step 3 refusals of spec.tls', () => {
  const tlsInput = (secrets: TlsSecretView[], overrides: Partial<PlanInput> = {}): PlanInput => {
    const base = steady(3);
    return {
      ...base,
      cluster: { ...base.cluster, schemes: { client: 'https', peer: 'https' } },
      pods: base.pods.map((p) => ({ ...p, schemes: { client: 'https', peer: 'https' } })),
      tls: secrets,
      ...overrides,
    };
  };
  const serving = (dnsNames: string[], problem?: string): TlsSecretView => ({
    field: 'spec.tls.client.secretName',
    secretName: 'demo-server-tls',
    dnsNames,
    covers: 'serving',
    ...(problem ? { problem } : {}),
  });
  const peer = (dnsNames: string[]): TlsSecretView => ({
    field: 'spec.tls.peer.secretName',
    secretName: 'demo-peer-tls',
    dnsNames,
    covers: 'peer',
  });

  it('GIVEN wildcard certificates THEN nothing is refused and the planner goes on', () => {
    const input = tlsInput([serving(servingDnsNames('demo', 'ns')), peer(peerDnsNames('demo', 'ns'))]);
    assert.equal(checkTls(input), undefined);
    assert.notEqual(planMembership(input).kind, 'Refuse');
  });

  it('GIVEN a Secret with a problem THEN the refusal names the field, the Secret and the problem, and the planner does nothing else', () => {
    const input = tlsInput([serving([], 'no such Secret; cert-manager may still be issuing it')]);
    const action = planMembership(input);
    assert.deepEqual(action, {
      kind: 'Refuse',
      field: 'spec.tls.client.secretName',
      value: 'demo-server-tls (no such Secret; cert-manager may still be issuing it)',
      allowed:
        'a Secret in the cluster namespace with tls.crt, tls.key (its key) and ca.crt, valid now, signed by the CA that must trust it (docs/design/tls.md)',
    });
  });

  it("GIVEN a serving certificate listing today's members only THEN it is refused for the next member name, suggesting the wildcard", () => {
    const listed = ['demo-0', 'demo-1', 'demo-2'].map((m) => `${m}.demo-peer.ns.svc`);
    const action = checkTls(tlsInput([serving([...listed, 'demo-client.ns.svc'])]));
    assert.equal(action?.field, 'spec.tls.client.secretName');
    assert.match(action?.value ?? '', /^demo-server-tls \(tls\.crt names demo-0\.demo-peer\.ns\.svc, /);
    assert.equal(
      action?.allowed,
      'a certificate whose DNS names cover demo-3.demo-peer.ns.svc, e.g. *.demo-peer.ns.svc',
    );
  });

  it('GIVEN a peer certificate without the peer Service name THEN it is refused naming it', () => {
    const action = checkTls(tlsInput([serving(servingDnsNames('demo', 'ns')), peer(['*.demo-peer.ns.svc'])]));
    assert.equal(action?.field, 'spec.tls.peer.secretName');
    assert.match(action?.allowed ?? '', /cover demo-peer\.ns\.svc,/);
  });

  it('GIVEN spec.tls.peer removed while member Pods listen with https THEN refused: peer URLs are membership', () => {
    const input = tlsInput([serving(servingDnsNames('demo', 'ns'))]);
    const action = checkTls({
      ...input,
      cluster: { ...input.cluster, schemes: { client: 'https', peer: 'http' } },
    });
    assert.deepEqual(action, {
      kind: 'Refuse',
      field: 'spec.tls.peer',
      value: "unset while member Pod demo-0 serves https (peer URLs are part of etcd's membership)",
      allowed:
        'the peer TLS the cluster was created with; for another, a new EtcdCluster with the wanted spec.tls and spec.bootstrap.backup from a backup of this one',
    });
  });

  it('GIVEN spec.tls.client added to a cluster whose Pods serve http THEN refused', () => {
    const base = steady(3);
    const action = checkTls({
      ...base,
      cluster: { ...base.cluster, schemes: { client: 'https', peer: 'http' } },
      pods: base.pods.map((p) => ({ ...p, schemes: { client: 'http', peer: 'http' } })),
    });
    assert.equal(action?.field, 'spec.tls.client');
    assert.match(action?.value ?? '', /^set while member Pod demo-0 serves http/);
  });

  it('GIVEN no spec.tls and http Pods THEN nothing is refused', () => {
    const base = steady(3);
    assert.equal(
      checkTls({
        ...base,
        pods: base.pods.map((p) => ({ ...p, schemes: { client: 'http', peer: 'http' } })),
      }),
      undefined,
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultMemberAntiAffinityTerm, memberAffinity } from '../../../constructs/conventions/scheduling.js';

const hostnameTerm = {
  topologyKey: 'kubernetes.io/hostname',
  labelSelector: {
    matchLabels: {
      'app.kubernetes.io/name': 'etcd',
      'app.kubernetes.io/instance': 'main',
      'app.kubernetes.io/component': 'member',
    },
  },
};

const nodeAffinity = {
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
  },
};

describe('member affinity', () => {
  it('GIVEN no user affinity THEN members prefer distinct nodes by hostname, with weight 100', () => {
    assert.deepEqual(memberAffinity('main'), {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: hostnameTerm }],
      },
    });
  });

  it('GIVEN an affinity that already holds the default term WHEN merged again THEN the term is not repeated', () => {
    const once = memberAffinity('main');
    assert.deepEqual(memberAffinity('main', once), once);
    const required = memberAffinity('main', undefined, 'Required');
    assert.deepEqual(memberAffinity('main', required, 'Required'), required);
  });

  it('GIVEN a user nodeAffinity WHEN merged THEN the nodeAffinity and the default pod anti-affinity both apply', () => {
    const merged = memberAffinity('main', { nodeAffinity });
    assert.deepEqual(merged, {
      nodeAffinity,
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [defaultMemberAntiAffinityTerm('main')],
      },
    });
  });

  it('GIVEN user preferred pod anti-affinity terms WHEN merged THEN ours is appended to them, none replaced', () => {
    const zone = {
      weight: 50,
      podAffinityTerm: {
        topologyKey: 'topology.kubernetes.io/zone',
        labelSelector: { matchLabels: { a: 'b' } },
      },
    };
    const other = { weight: 10, podAffinityTerm: { topologyKey: 'rack', labelSelector: {} } };
    const merged = memberAffinity('main', {
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [zone, other] },
    });
    assert.deepEqual(merged.podAntiAffinity, {
      preferredDuringSchedulingIgnoredDuringExecution: [zone, other, defaultMemberAntiAffinityTerm('main')],
    });
  });

  it('GIVEN required anti-affinity terms and pod affinity WHEN merged THEN they are kept beside the default', () => {
    const required = [
      { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } },
    ];
    const merged = memberAffinity('main', {
      podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required },
    });
    assert.deepEqual(merged, {
      podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: required,
        preferredDuringSchedulingIgnoredDuringExecution: [defaultMemberAntiAffinityTerm('main')],
      },
    });
  });

  it('GIVEN Required WHEN merged THEN members must be on distinct hostnames and no preferred term is added', () => {
    assert.deepEqual(memberAffinity('main', undefined, 'Required'), {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [hostnameTerm] },
    });
  });

  it('GIVEN Required and user affinity of every kind WHEN merged THEN all user terms stay and ours is appended to the required ones', () => {
    const userRequired = {
      topologyKey: 'topology.kubernetes.io/zone',
      labelSelector: { matchLabels: { app: 'x' } },
    };
    const userPreferred = { weight: 5, podAffinityTerm: hostnameTerm };
    const merged = memberAffinity(
      'main',
      {
        nodeAffinity,
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [userRequired],
          preferredDuringSchedulingIgnoredDuringExecution: [userPreferred],
        },
      },
      'Required',
    );
    assert.deepEqual(merged, {
      nodeAffinity,
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [userRequired, hostnameTerm],
        preferredDuringSchedulingIgnoredDuringExecution: [userPreferred],
      },
    });
  });

  it('fails when the mode is neither Preferred nor Required, naming the field, the value and what is allowed', () => {
    assert.throws(
      () => memberAffinity('main', undefined, 'required' as never),
      /^Error: spec\.podTemplate\.memberAntiAffinity: 'required' is not allowed; allowed: Preferred or Required$/,
    );
  });
});

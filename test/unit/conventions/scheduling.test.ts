import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultMemberAntiAffinityTerm, memberAffinity } from '../../../constructs/conventions/scheduling.js';

describe('member affinity', () => {
  it('GIVEN an affinity that already holds the default term WHEN merged again THEN the term is not repeated', () => {
    const once = memberAffinity('main');
    assert.deepEqual(memberAffinity('main', once), once);
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
});

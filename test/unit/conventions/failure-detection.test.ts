// The lost rule (docs/design/membership.md, "Lost members"): node not Ready past its bound, Node gone, Pod
// Terminating or unscheduled past its bound; the bounds and their defaults.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_NODE_NOT_READY,
  DEFAULT_POD_STUCK,
  failureBounds,
  lostReason,
  nodeNotReadyNote,
} from '../../../constructs/conventions/failure-detection.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const ago = (seconds: number) => NOW - seconds * 1000;
const bounds = failureBounds(undefined);

describe('failure detection', () => {
  it('defaults to nodeNotReady 2m and podStuck 5m; a spec value wins, 0s included', () => {
    assert.deepEqual(bounds, {
      nodeNotReadyMs: 120_000,
      nodeNotReady: DEFAULT_NODE_NOT_READY,
      podStuckMs: 300_000,
      podStuck: DEFAULT_POD_STUCK,
    });
    assert.deepEqual(failureBounds({ nodeNotReady: '30s', podStuck: '0s' }), {
      nodeNotReadyMs: 30_000,
      nodeNotReady: '30s',
      podStuckMs: 0,
      podStuck: '0s',
    });
  });

  it('a node not Ready within the bound is not lost, and the wait says how long and the bound', () => {
    const pod = { nodeName: 'node-2', node: { ready: false, notReadySinceMs: ago(120) } };
    assert.equal(lostReason(pod, bounds, NOW), undefined);
    assert.equal(
      nodeNotReadyNote(pod, bounds, NOW),
      'its node node-2 has not been Ready for 2m; it is replaced after 2m (spec.failureDetection.nodeNotReady)',
    );
  });

  it('a node not Ready past the bound makes the Pod lost, naming node, time and field', () => {
    const pod = { nodeName: 'node-2', node: { ready: false, notReadySinceMs: ago(125.7) } };
    assert.equal(
      lostReason(pod, bounds, NOW),
      'its node node-2 has not been Ready for 2m5s (spec.failureDetection.nodeNotReady: 2m)',
    );
  });

  it('a Ready node never makes the Pod lost, however old its condition', () => {
    const pod = { nodeName: 'node-1', node: { ready: true, notReadySinceMs: ago(86_400) } };
    assert.equal(lostReason(pod, bounds, NOW), undefined);
    assert.equal(nodeNotReadyNote(pod, bounds, NOW), undefined);
  });

  it('a Node object that no longer exists makes the Pod lost at once', () => {
    assert.equal(
      lostReason({ nodeName: 'node-9', node: 'missing' }, bounds, NOW),
      'its node node-9 no longer exists',
    );
  });

  it('Terminating past the grace period for longer than podStuck', () => {
    assert.equal(lostReason({ nodeName: 'n', deletionMs: ago(300) }, bounds, NOW), undefined);
    assert.equal(
      lostReason({ nodeName: 'n', deletionMs: ago(301) }, bounds, NOW),
      'its Pod has been Terminating for 5m1s past its grace period (spec.failureDetection.podStuck: 5m)',
    );
  });

  it('unscheduled for longer than podStuck, with the scheduler message', () => {
    const pod = {
      unscheduledSinceMs: ago(400),
      unscheduledMessage: '0/3 nodes are available: 1 node(s) had volume node affinity conflict',
    };
    assert.equal(
      lostReason(pod, bounds, NOW),
      'its Pod has not been scheduled for 6m40s (spec.failureDetection.podStuck: 5m): 0/3 nodes are available: 1 node(s) had volume node affinity conflict',
    );
    assert.equal(lostReason({ unscheduledSinceMs: ago(100) }, bounds, NOW), undefined);
  });
});

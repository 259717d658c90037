import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareSemver,
  ETCD_VERSION_PATTERN,
  isSupportedEtcdVersion,
  MIN_PATCH_BEFORE_NEXT_MINOR,
  MIN_PATCH_STEPS,
  parseSemver,
  rollbackRefusal,
  type Semver,
  SUPPORTED_ETCD_RANGE,
  VERSION_ORIGIN,
  VERSION_STEP_ALLOWED,
  type VersionStepRefusal,
  versionStepRefusal,
} from '../../../constructs/conventions/version.js';

const v = (text: string): Semver => {
  const parsed = parseSemver(text);
  assert.ok(parsed, text);
  return parsed;
};

describe('the etcd version grammar', () => {
  it('GIVEN X.Y.Z WHEN parsed THEN major, minor and patch are numbers', () => {
    assert.deepEqual(parseSemver('3.6.16'), { major: 3, minor: 6, patch: 16 });
    assert.deepEqual(parseSemver('0.0.0'), { major: 0, minor: 0, patch: 0 });
  });

  for (const text of [
    'v3.6.16',
    '3.6',
    '3.6.16-rc.1',
    '3.6.16+build',
    'latest',
    '03.6.1',
    '3.06.1',
    ' 3.6.1',
    '',
  ]) {
    it(`fails when the version is '${text}'`, () => assert.equal(parseSemver(text), undefined));
  }

  it('GIVEN the CRD pattern THEN it accepts exactly what the parser accepts', () => {
    const pattern = new RegExp(ETCD_VERSION_PATTERN);
    for (const text of ['3.6.16', '3.4.0', 'v3.6.16', '03.6.1', '3.6']) {
      assert.equal(pattern.test(text), parseSemver(text) !== undefined, text);
    }
    assert.doesNotMatch(
      ETCD_VERSION_PATTERN,
      /\\/,
      'no backslash: the pattern goes into CEL and YAML unescaped',
    );
  });

  it('GIVEN versions WHEN compared THEN numbers, not text, decide', () => {
    assert.ok(compareSemver(v('3.5.10'), v('3.5.9')) > 0);
    assert.ok(compareSemver(v('3.4.30'), v('3.5.0')) < 0);
    assert.equal(compareSemver(v('3.6.1'), v('3.6.1')), 0);
  });

  it('GIVEN the supported range THEN 3.4, 3.5 and 3.6 are in it and 3.3, 3.7 and 4.0 are not', () => {
    assert.equal(SUPPORTED_ETCD_RANGE, '3.4.x to 3.6.x');
    for (const [text, supported] of [
      ['3.4.0', true],
      ['3.5.17', true],
      ['3.6.16', true],
      ['3.3.27', false],
      ['3.7.0', false],
      ['4.0.0', false],
    ] as const) {
      assert.equal(
        isSupportedEtcdVersion(parseSemver(text) as NonNullable<ReturnType<typeof parseSemver>>),
        supported,
        text,
      );
    }
  });
});

describe('the version path: which step from one etcd version to another is allowed', () => {
  it('GIVEN etcd 3.5 THEN 3.5.26 is the minimum before 3.6 (etcd-io/website PR #1095)', () => {
    assert.deepEqual(MIN_PATCH_BEFORE_NEXT_MINOR, { '3.5': 26 });
    assert.deepEqual(MIN_PATCH_STEPS, [{ minimum: { major: 3, minor: 5, patch: 26 }, next: '3.6' }]);
  });

  const allowed: ReadonlyArray<readonly [string, string, string]> = [
    ['3.5.20', '3.5.20', 'the same version'],
    ['3.5.20', '3.5.35', 'a patch up below the minimum'],
    ['3.4.23', '3.5.0', 'one minor up from a minor without a minimum'],
    ['3.5.26', '3.6.0', 'one minor up from exactly the minimum'],
    ['3.5.35', '3.6.16', 'one minor up from above the minimum'],
    ['3.6.16', '3.6.17', 'a patch up in the newest minor'],
  ];
  for (const [from, to, what] of allowed) {
    it(`GIVEN ${from} WHEN it goes to ${to} (${what}) THEN the step is allowed`, () =>
      assert.equal(versionStepRefusal(v(from), v(to)), undefined));
  }

  const down = (from: string) => `${from} or newer (was ${from}; etcd does not support downgrades)`;
  const skip = (from: string) =>
    `at most one minor version above ${from} (was ${from}; etcd upgrades one minor at a time)`;
  const refused: ReadonlyArray<readonly [string, string, VersionStepRefusal]> = [
    ['3.6.16', '3.5.35', { rule: 'down', allowed: down('3.6.16') }],
    ['3.6.16', '3.6.9', { rule: 'down', allowed: down('3.6.16') }],
    ['4.0.0', '3.9.9', { rule: 'down', allowed: down('4.0.0') }],
    ['3.4.23', '3.6.16', { rule: 'minor-skip', allowed: skip('3.4.23') }],
    ['3.5.20', '3.7.0', { rule: 'minor-skip', allowed: skip('3.5.20') }],
    ['3.6.16', '4.0.0', { rule: 'minor-skip', allowed: skip('3.6.16') }],
    [
      '3.5.20',
      '3.6.16',
      { rule: 'min-patch', allowed: "3.5.26 or newer first (etcd's minimum before 3.6; was 3.5.20)" },
    ],
    [
      '3.5.25',
      '3.6.0',
      { rule: 'min-patch', allowed: "3.5.26 or newer first (etcd's minimum before 3.6; was 3.5.25)" },
    ],
  ];
  for (const [from, to, refusal] of refused) {
    it(`fails when ${from} goes to ${to}: ${refusal.rule}`, () =>
      assert.deepEqual(versionStepRefusal(v(from), v(to)), refusal));
  }

  it('GIVEN where the old version comes from WHEN the minimum patch refuses THEN the text says it', () => {
    assert.deepEqual(versionStepRefusal(v('3.5.20'), v('3.6.16'), 'members run 3.5.20'), {
      rule: 'min-patch',
      allowed: "3.5.26 or newer first (etcd's minimum before 3.6; members run 3.5.20)",
    });
  });

  it('GIVEN the members run the old version WHEN a step is refused THEN every text says so', () => {
    const running = VERSION_ORIGIN.running('3.5.35');
    assert.equal(running, 'members run 3.5.35');
    assert.deepEqual(versionStepRefusal(v('3.5.35'), v('3.5.30'), running), {
      rule: 'down',
      allowed: '3.5.35 or newer (members run 3.5.35; etcd does not support downgrades)',
    });
    assert.deepEqual(versionStepRefusal(v('3.4.23'), v('3.6.16'), VERSION_ORIGIN.running('3.4.23')), {
      rule: 'minor-skip',
      allowed:
        'at most one minor version above 3.4.23 (members run 3.4.23; etcd upgrades one minor at a time)',
    });
  });

  it('GIVEN a member runs 3.6.16 WHEN the spec goes back to 3.5 THEN it is a rollback of a half-done upgrade; 3.6 and up are not', () => {
    assert.deepEqual(rollbackRefusal(v('3.6.16'), v('3.5.35')), {
      rule: 'rollback',
      allowed: '3.6.0 or newer (a member runs 3.6.16; no rollback of a half-done upgrade)',
    });
    assert.equal(rollbackRefusal(v('3.6.16'), v('3.6.0')), undefined);
    assert.equal(rollbackRefusal(v('3.6.16'), v('3.6.17')), undefined);
    assert.equal(
      rollbackRefusal(v('3.5.35'), v('3.5.20')),
      undefined,
      'a patch down is the down rule, not this',
    );
  });

  it('GIVEN the allowed texts THEN none holds a double quote or backslash (the CRD splices them into CEL strings)', () => {
    for (const text of [
      VERSION_STEP_ALLOWED.down('3.6.16', VERSION_ORIGIN.running('3.6.16')),
      VERSION_STEP_ALLOWED.minorSkip('3.4.23', VERSION_ORIGIN.spec('3.4.23')),
      VERSION_STEP_ALLOWED.minPatch('3.5.26', '3.6', 'was 3.5.20'),
      VERSION_STEP_ALLOWED.rollback('3.6.0', VERSION_ORIGIN.newest('3.6.16')),
    ]) {
      assert.doesNotMatch(text, /["\\]/, text);
    }
  });
});

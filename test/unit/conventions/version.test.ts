import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareSemver,
  ETCD_VERSION_PATTERN,
  isSupportedEtcdVersion,
  parseSemver,
  SUPPORTED_ETCD_RANGE,
} from '../../../constructs/conventions/version.js';

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
    const v = (text: string) => parseSemver(text) as NonNullable<ReturnType<typeof parseSemver>>;
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

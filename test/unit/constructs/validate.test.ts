import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronProblem } from '../../../constructs/conventions/cron.js';
import { validateBucketName } from '../../../constructs/validate/bucket.js';
import { validateCron } from '../../../constructs/validate/cron.js';
import { validateDuration } from '../../../constructs/validate/duration.js';
import { validateQuantity } from '../../../constructs/validate/quantity.js';
import { validateEtcdVersion } from '../../../constructs/validate/semver.js';

describe('synth-time validators', () => {
  it('GIVEN schedules Kubernetes accepts WHEN checked THEN none is refused', () => {
    for (const schedule of [
      '0 */6 * * *',
      '*/15 * * * *',
      '30 2 * * 1-5',
      '0 0 1,15 * *',
      '@daily',
      '@hourly',
      '0 3 * JAN-MAR sun',
      '5 4 * * 7',
    ]) {
      assert.equal(cronProblem(schedule), undefined, schedule);
    }
  });

  it('fails when a schedule has the wrong field count, an out-of-range value, a bad step or an unknown macro', () => {
    for (const [schedule, problem] of [
      ['0 * * *', /expected 5 fields/],
      ['60 * * * *', /minute field '60'/],
      ['0 24 * * *', /hour field '24'/],
      ['*/0 * * * *', /minute field/],
      ['0 0 0 * *', /day of month field '0'/],
      ['@every 5m', /unknown macro/],
      ['5-1 * * * *', /minute field '5-1'/],
    ] as const) {
      assert.throws(() => validateCron(schedule), problem, schedule);
    }
    assert.throws(
      () => validateCron('61 * * * *'),
      /^Error: 'schedule' must be a cron schedule of 5 fields .* got '61 \* \* \* \*'/,
    );
  });

  it('GIVEN valid S3 bucket names THEN they pass, and fails when a name breaks an S3 rule', () => {
    for (const bucket of ['etcd-backups', 'abc', 'my.bucket.1', 'a'.repeat(63)])
      assert.equal(validateBucketName(bucket), bucket);
    for (const bucket of [
      'ab',
      'a'.repeat(64),
      'Etcd',
      'etcd_backups',
      '-etcd',
      'etcd-',
      '192.168.1.1',
      'a..b',
      'a.-b',
    ]) {
      assert.throws(
        () => validateBucketName(bucket),
        /^Error: 'bucket' must be an S3 bucket name \(3-63 characters/,
        bucket,
      );
    }
  });

  it('GIVEN Kubernetes quantities THEN they pass, and fails when a value is no quantity or not positive', () => {
    for (const q of ['1Gi', '512Mi', '10G', '1.5Gi', '100m', '1e3'])
      assert.equal(validateQuantity('storage.size', q), q);
    for (const q of ['1GB', 'lots', '1 Gi', '', 'Gi']) {
      assert.throws(
        () => validateQuantity('storage.size', q),
        /^Error: 'storage.size' must be a Kubernetes quantity such as 1Gi/,
        q,
      );
    }
    for (const q of ['0', '0Gi', '-1Gi'])
      assert.throws(() => validateQuantity('storage.size', q), /greater than zero/, q);
  });

  it('GIVEN etcd versions THEN X.Y.Z from 3.4.0 to 3.6.x pass, and fails when a version is no semver, older than 3.4 or newer than the controller runs', () => {
    assert.deepEqual(validateEtcdVersion('3.6.16'), { major: 3, minor: 6, patch: 16 });
    for (const v of ['v3.6.16', '3.6', '3.6.16-rc.1', 'latest', '03.6.1']) {
      assert.throws(
        () => validateEtcdVersion(v),
        /^Error: 'version' must be an etcd release written X\.Y\.Z/,
        v,
      );
    }
    assert.throws(
      () => validateEtcdVersion('3.3.27'),
      /^Error: 'version' must be 3\.4\.0 or newer .* got '3\.3\.27'/,
    );
    for (const v of ['3.7.0', '4.0.0']) {
      assert.throws(
        () => validateEtcdVersion(v),
        new RegExp(
          `^Error: 'version' must be a release the controller runs \\(3\\.4\\.x to 3\\.6\\.x\\), got '${v}'$`,
        ),
        v,
      );
    }
  });

  it('GIVEN retention ages THEN 30d, 12h and 1d12h pass, and fails when an age is zero or has no unit', () => {
    for (const d of ['30d', '12h', '1d12h', '90m']) assert.equal(validateDuration('maxAge', d), d);
    for (const d of ['0d', '30', '1w', ''])
      assert.throws(() => validateDuration('maxAge', d), /^Error: 'maxAge' must be a positive duration/, d);
  });
});

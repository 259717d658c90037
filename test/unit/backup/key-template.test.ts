import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultKeyTemplate,
  keyPrefix,
  keyTimestamp,
  renderKey,
  validateKeyTemplate,
} from '../../../controller/backup/key-template.js';

const fields = {
  namespace: 'team-a',
  cluster: 'main',
  time: new Date('2026-02-12T20:18:48.123Z'),
  revision: '1042',
};

describe('key template', () => {
  it('renders the default template with a compact UTC timestamp', () => {
    // GIVEN the default template WHEN rendered THEN every placeholder is filled
    assert.equal(renderKey(defaultKeyTemplate, fields), 'team-a/main/20260212T201848Z-rev1042.db');
  });

  it('appends .gz for gzip backups', () => {
    assert.equal(renderKey(defaultKeyTemplate, fields, 'gzip'), 'team-a/main/20260212T201848Z-rev1042.db.gz');
  });

  it('renders a placeholder used twice', () => {
    assert.equal(renderKey('{cluster}/{cluster}-{timestamp}', fields), 'main/main-20260212T201848Z');
  });

  it('timestamps sort like the times they encode', () => {
    const a = keyTimestamp(new Date('2026-01-09T23:59:59Z'));
    const b = keyTimestamp(new Date('2026-01-10T00:00:00Z'));
    assert.equal(a, '20260109T235959Z');
    assert.ok(a < b);
  });

  it('gives the fixed prefix before the first per-backup placeholder', () => {
    assert.equal(keyPrefix(defaultKeyTemplate, fields), 'team-a/main/');
    assert.equal(keyPrefix('backups/{cluster}-{revision}-{timestamp}', fields), 'backups/main-');
  });

  it('fails when the template has an unknown placeholder', () => {
    assert.throws(
      () => validateKeyTemplate('{namespace}/{date}/{timestamp}'),
      /unknown placeholder \{date\}; allowed: \{namespace\}/,
    );
  });

  it('fails when the template lacks {timestamp}', () => {
    assert.throws(() => validateKeyTemplate('{cluster}/rev{revision}'), /must contain \{timestamp\}/);
  });

  it('fails when the template ends in .part', () => {
    assert.throws(() => validateKeyTemplate('{cluster}/{timestamp}.part'), /must not end in '\.part'/);
  });

  it('fails when the template starts with a slash', () => {
    assert.throws(() => validateKeyTemplate('/{cluster}/{timestamp}'), /must not start with '\/'/);
  });
});

// FallbackToLogsOnError in the node agent: the tail of the failed run's log, with the kubelet's limits.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  FALLBACK_LOG_BYTES,
  FALLBACK_LOG_LINES,
  fallbackMessage,
  logOffset,
  logTail,
} from '../../env/agent/termination-message.js';

describe('termination message from the log (FallbackToLogsOnError)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'termination-message-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('GIVEN a log with an earlier run WHEN the next run fails THEN only that run is the message', () => {
    const log = join(dir, 'c.log');
    appendFileSync(log, 'first run\n');
    const offset = logOffset(log);
    appendFileSync(log, 'second run\n{"code":"BackupNotFound"}\n');
    assert.equal(fallbackMessage(log, offset), 'second run\n{"code":"BackupNotFound"}\n');
  });

  it('GIVEN a run that printed nothing THEN there is no message', () => {
    const log = join(dir, 'quiet.log');
    appendFileSync(log, 'earlier\n');
    assert.equal(fallbackMessage(log, logOffset(log)), undefined);
    assert.equal(fallbackMessage(join(dir, 'missing.log'), 0), undefined);
  });

  it(`GIVEN more than ${FALLBACK_LOG_LINES} lines THEN the last ${FALLBACK_LOG_LINES} are kept`, () => {
    const text = `${[...Array(100).keys()].map((i) => `line ${i}`).join('\n')}\n`;
    const tail = logTail(text).split('\n').filter(Boolean);
    assert.equal(tail.length, FALLBACK_LOG_LINES);
    assert.equal(tail.at(-1), 'line 99');
    assert.equal(tail[0], 'line 20');
  });

  it(`GIVEN long lines THEN the message is at most ${FALLBACK_LOG_BYTES} bytes, ending with the last line`, () => {
    const text = `${'x'.repeat(3000)}\n{"code":"ChecksumMismatch"}\n`;
    const tail = logTail(text);
    assert.equal(Buffer.byteLength(tail), FALLBACK_LOG_BYTES);
    assert.ok(tail.endsWith('{"code":"ChecksumMismatch"}\n'));
  });
});

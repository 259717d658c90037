// Reading memory figures from /proc/<pid>/status (bench/proc-status.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { processMiB, statusMiB } from '../../../bench/proc-status.js';

describe('statusMiB', () => {
  const status = [
    'Name:\tnode',
    'VmPeak:\t 1048576 kB',
    'VmHWM:\t  204800 kB',
    'VmRSS:\t  131072 kB',
    'RssAnon:\t   81920 kB',
    'RssFile:\t   49152 kB',
  ].join('\n');

  it('GIVEN a status text THEN VmRSS, VmHWM and RssFile in MiB, not VmPeak', () => {
    assert.equal(statusMiB(status, 'VmRSS'), 128);
    assert.equal(statusMiB(status, 'VmHWM'), 200);
    assert.equal(statusMiB(status, 'RssFile'), 48);
  });

  it('GIVEN a status without the field (a kernel thread) THEN undefined', () =>
    assert.equal(statusMiB('Name:\tkthreadd\n', 'VmRSS'), undefined));

  it('GIVEN this process THEN its resident set, at most its peak, of which a part is mapped from files', () => {
    const rss = processMiB('self', 'VmRSS');
    assert.ok(rss > 10 && rss <= processMiB('self', 'VmHWM'), String(rss));
    const file = processMiB('self', 'RssFile');
    assert.ok(file > 0 && file < rss, `RssFile ${file} of VmRSS ${rss}`);
  });
});

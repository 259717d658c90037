// The README's performance table is the one bench/readme-table.ts renders from the committed bench/results: a
// figure changed in one and not the other fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  README,
  RESULTS,
  readResults,
  renderTable,
  replaceTable,
  TABLE_END,
  TABLE_START,
} from '../../../bench/readme-table.js';

describe('README performance table', () => {
  it('GIVEN the committed bench results THEN the README holds exactly the table they render', () => {
    const readme = readFileSync(README, 'utf8');
    const table = renderTable(readResults(RESULTS));
    assert.equal(readme, replaceTable(readme, table), 'run `npm run bench:table` after a bench');
  });

  it('GIVEN a README without the markers THEN replacing the table says which block is missing', () => {
    assert.throws(() => replaceTable('# no table', '| a |'), new RegExp(TABLE_START.slice(0, 20)));
  });

  it('GIVEN a figure that differs THEN the README no longer matches', () => {
    const readme = `x\n${TABLE_START}\n| old |\n${TABLE_END}\ny`;
    assert.equal(replaceTable(readme, '| new |'), `x\n${TABLE_START}\n| new |\n${TABLE_END}\ny`);
  });
});

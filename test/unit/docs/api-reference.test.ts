// docs/api/reference.md is generated from the library's entry point and JSDoc (scripts/api-reference.mjs, API
// Extractor's doc model of constructs/lib/esm, which `npm run build` writes before the unit layer runs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../env/binaries.js';

interface ModelItem {
  kind: string;
  name: string;
  docComment?: string;
  members?: ModelItem[];
}
interface DocModel {
  members: [{ members: ModelItem[] }];
}
interface Generator {
  REFERENCE: string;
  docModel(): DocModel;
  render(model: DocModel): string;
  undocumented(model: DocModel): string[];
}

describe('the generated API reference (docs/api/reference.md)', () => {
  let generator: Generator;
  let model: DocModel;
  let committed: string;
  before(async () => {
    generator = (await import(
      pathToFileURL(join(repoRoot, 'scripts', 'api-reference.mjs')).href
    )) as Generator;
    model = generator.docModel();
    committed = readFileSync(generator.REFERENCE, 'utf8');
  });

  it("GIVEN the library's JSDoc WHEN the reference is generated THEN it equals the committed page (else: npm run docs:api)", () => {
    assert.ok(
      generator.render(model) === committed,
      "docs/api/reference.md is stale: run 'npm run docs:api' and commit it",
    );
  });

  it('GIVEN one changed JSDoc line WHEN the reference is generated THEN it differs from the committed page (the check above bites)', () => {
    const changed = structuredClone(model);
    const cluster = changed.members[0].members.find((item) => item.name === 'EtcdClusterProps');
    const prop = cluster?.members?.find((member) => member.name === 'clients');
    assert.ok(prop?.docComment);
    prop.docComment = prop.docComment.replace('Clients,', 'Applications,');
    assert.notEqual(generator.render(changed), committed);
  });

  it('GIVEN every exported item and member THEN each has a description and a place on the page', () => {
    assert.deepEqual(generator.undocumented(model), []);
    const items = model.members[0].members;
    assert.ok(items.length >= 60, `${items.length} exported items`);
    for (const item of items) {
      assert.ok(committed.includes(`\n### ${item.name}\n`), `a heading for ${item.kind} ${item.name}`);
      for (const member of item.members ?? []) {
        if (member.kind === 'Constructor') continue;
        const row = member.kind.startsWith('Property') ? `| \`${member.name}` : `#### ${member.name}\n`;
        assert.ok(committed.includes(row), `${item.name}.${member.name} (${member.kind}) on the page`);
      }
    }
  });
});

// dist/ applies with the README's plain kubectl commands: CRDs first and waited for, then the whole directory; and
// the example's backup CronJob does not run as shipped, with its prerequisites shown in the README.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Yaml } from 'cdk8s';
import { repoRoot } from '../../env/binaries.js';
import { distDir, type Manifest, yamlFiles } from './dist-files.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const section = readme.split('## Plain kubectl')[1]?.split('\n## ')[0] ?? '';
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const commands = (blocks[0] ?? '').split('\n').filter((line) => line.startsWith('kubectl'));
const files = yamlFiles(distDir).map((file) => ({
  file,
  objects: (Yaml.load(join(distDir, file)) as Manifest[]).filter(Boolean),
}));
const all = files.flatMap((f) => f.objects);

describe('dist/ with plain kubectl', () => {
  it('GIVEN the README THEN it applies the CRD file, waits for exactly the CRDs of dist/, then applies dist/', () => {
    const [applyCrds, wait, applyAll] = commands;
    const crdFile = /-f dist\/(\S+)/.exec(applyCrds ?? '')?.[1];
    const crds = files.find((f) => f.file === crdFile);
    assert.ok(crds, `the first command applies a file of dist/: ${applyCrds}`);
    assert.ok(
      crds.objects.every((o) => o.kind === 'CustomResourceDefinition'),
      `${crdFile} holds only CRDs`,
    );
    assert.deepEqual(
      crds.objects.map((o) => o.metadata.name).sort(),
      all
        .filter((o) => o.kind === 'CustomResourceDefinition')
        .map((o) => o.metadata.name)
        .sort(),
      'every CRD of dist/ is in that file',
    );
    assert.match(wait ?? '', /^kubectl wait --for=condition=Established /);
    assert.deepEqual(
      [...(wait ?? '').matchAll(/crd\/(\S+)/g)].map((m) => m[1]).sort(),
      crds.objects.map((o) => `${o.metadata.name}`).sort(),
    );
    assert.equal(applyAll, 'kubectl apply --server-side -f dist/');
    assert.match(applyCrds ?? '', /--server-side/);
  });

  it('GIVEN dist/ in file order THEN every namespace an object uses is created before it', () => {
    const created = new Set<string>();
    for (const object of all) {
      if (object.kind === 'Namespace') created.add(object.metadata.name);
      const namespace = object.metadata.namespace;
      if (namespace)
        assert.ok(
          created.has(namespace),
          `${object.kind}/${object.metadata.name} uses ${namespace} before it exists`,
        );
    }
  });

  it('GIVEN the example THEN its backup CronJob is suspended and the README shows its Secret and a backup from it', () => {
    const cronJob = all.find((o) => o.kind === 'CronJob') as Manifest;
    assert.equal(cronJob.spec.suspend, true);
    const container = cronJob.spec.jobTemplate.spec.template.spec.containers[0];
    const secret = container.envFrom[0].secretRef.name;
    const namespace = cronJob.metadata.namespace;
    const steps = blocks[1] ?? '';
    assert.match(steps, new RegExp(`kubectl -n ${namespace} create secret generic ${secret} `));
    assert.match(steps, new RegExp(`create job --from=cronjob/${cronJob.metadata.name} `));
    const endpoint = (container.args as string[]).find((a) => a.startsWith('--s3-endpoint='))?.split('=')[1];
    assert.ok(endpoint && section.includes(endpoint), `the README names the endpoint ${endpoint}`);
  });
});

#!/usr/bin/env node
// Generates docs/api/reference.md, the library's API reference, from its entry point and JSDoc: API Extractor
// (Microsoft's, maintained) reads the built declarations (constructs/lib/esm/index.d.ts, `npm run build` first) into
// its doc model, and this script renders that model as one Markdown page, props with their `@default`s
// (docs/adr/0006-generated-api-reference.md says why not API Documenter). `--check` fails when the committed page differs
// from what the current JSDoc gives (the unit test test/unit/docs/api-reference.test.ts runs it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const library = join(root, 'constructs');
export const REFERENCE = join(root, 'docs', 'api', 'reference.md');

/** API Extractor's doc model of the library's entry point (its JSON form). */
export function docModel() {
  const temp = mkdtempSync(join(tmpdir(), 'etcd-gitops-api-'));
  try {
    const configObject = ExtractorConfig.loadFile(join(library, 'api-extractor.json'));
    configObject.docModel = { enabled: true, apiJsonFilePath: join(temp, 'model.api.json') };
    const config = ExtractorConfig.prepare({
      configObject,
      configObjectFullPath: join(library, 'api-extractor.json'),
      packageJsonFullPath: join(library, 'package.json'),
    });
    const problems = [];
    const result = Extractor.invoke(config, {
      localBuild: true,
      messageCallback: (message) => {
        if (message.logLevel === 'error' || message.logLevel === 'warning')
          problems.push(message.formatMessageWithLocation(library));
        message.handled = true;
      },
    });
    if (!result.succeeded || problems.length > 0)
      throw new Error(`API Extractor found ${problems.length} problem(s):\n${problems.join('\n')}`);
    return JSON.parse(readFileSync(join(temp, 'model.api.json'), 'utf8'));
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** A doc comment as API Extractor emits it: its summary and its block tags (`@default`, `@param`, ...). */
export function parseDoc(comment = '') {
  const lines = comment
    .replace(/^\/\*\*\s*\n?/, '')
    .replace(/\*\/\s*$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''));
  const blocks = [];
  let current = { tag: 'summary', lines: [] };
  for (const line of lines) {
    const tag = /^(@[a-zA-Z]+)\s*(.*)$/.exec(line);
    if (tag) {
      blocks.push(current);
      current = { tag: tag[1], lines: tag[2] ? [tag[2]] : [] };
    } else current.lines.push(line);
  }
  blocks.push(current);
  const text = (block) => block.lines.join('\n').trim();
  const of = (tag) => blocks.filter((block) => block.tag === tag).map(text);
  return {
    summary: of('summary')[0] ?? '',
    default: of('@default')[0],
    deprecated: of('@deprecated')[0],
    returns: of('@returns')[0],
    params: Object.fromEntries(
      of('@param').map((body) => {
        const match = /^(\w+)\s*(?:-\s*)?([\s\S]*)$/.exec(body);
        return match ? [match[1], match[2].trim()] : [body, ''];
      }),
    ),
  };
}

const excerpt = (item, range) =>
  range
    ? item.excerptTokens
        .slice(range.startIndex, range.endIndex)
        .map((token) => token.text)
        .join('')
    : '';
const declaration = (item) =>
  item.excerptTokens
    .map((token) => token.text)
    .join('')
    .replace(/^export declare /, '')
    .replace(/^export /, '')
    .trim();
/** `{@link Name}` as a link to that item's heading on this page. */
const links = (text) =>
  (text ?? '').replace(/\{@link\s+([\w.]+)\s*\}/g, (_, name) => `[${name}](#${anchor(name)})`);
/** A table cell: one line, pipes escaped. */
const cell = (text) =>
  links(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|');
const code = (text) => `\`${cell(text).replace(/`/g, "'")}\``;
function anchor(name) {
  return name.toLowerCase();
}

const SECTIONS = [
  ['Class', 'Constructs'],
  ['Interface', 'Props and other interfaces'],
  ['TypeAlias', 'Types'],
  ['Variable', 'Constants'],
  ['Function', 'Functions'],
  ['Enum', 'Enums'],
];

function renderProperties(members, lines) {
  const properties = members.filter((m) => m.kind === 'Property' || m.kind === 'PropertySignature');
  if (properties.length === 0) return;
  lines.push('| Property | Type | Default | Description |', '|---|---|---|---|');
  for (const property of properties) {
    const doc = parseDoc(property.docComment);
    const name = `${property.name}${property.isOptional ? '?' : ''}`;
    const type = excerpt(property, property.propertyTypeTokenRange);
    const deprecated = doc.deprecated ? ` **Deprecated:** ${doc.deprecated}` : '';
    lines.push(
      `| ${code(name)} | ${code(type)} | ${doc.default === undefined ? '' : cell(doc.default)} | ${cell(doc.summary)}${cell(deprecated)} |`,
    );
  }
  lines.push('');
}

function renderCallables(members, lines, heading) {
  for (const callable of members.filter((m) =>
    ['Constructor', 'Method', 'MethodSignature'].includes(m.kind),
  )) {
    const doc = parseDoc(callable.docComment);
    const title = callable.kind === 'Constructor' ? 'new' : callable.name;
    lines.push(`${heading} ${title}`, '', '```ts', declaration(callable), '```', '');
    if (doc.summary) lines.push(links(doc.summary), '');
    const parameters = callable.parameters ?? [];
    if (parameters.some((p) => doc.params[p.parameterName])) {
      lines.push('| Parameter | Type | Description |', '|---|---|---|');
      for (const p of parameters)
        lines.push(
          `| ${code(`${p.parameterName}${p.isOptional ? '?' : ''}`)} | ${code(excerpt(callable, p.parameterTypeTokenRange))} | ${cell(doc.params[p.parameterName])} |`,
        );
      lines.push('');
    }
    if (doc.returns) lines.push(`Returns: ${doc.returns}`, '');
  }
}

/** The reference page for the entry point's items. */
export function render(model) {
  const entryPoint = model.members[0];
  const items = [...entryPoint.members].sort((a, b) => a.name.localeCompare(b.name));
  const lines = [
    `# \`${model.name}\` API reference`,
    '',
    '<!-- Generated by `npm run docs:api` (scripts/api-reference.mjs) from the package entry point and its JSDoc;',
    '     edit the JSDoc, not this page. -->',
    '',
    "Everything `import { … } from 'etcd-gitops'` gives. Guides and examples: [constructs.md](constructs.md) and the",
    "[README](../../README.md); the custom resources' fields: [etcdcluster.md](etcdcluster.md).",
    '',
  ];
  for (const [kind, title] of SECTIONS) {
    const ofKind = items.filter((item) => item.kind === kind);
    if (ofKind.length === 0) continue;
    lines.push(`## ${title}`, '');
    for (const item of ofKind) {
      const doc = parseDoc(item.docComment);
      lines.push(`### ${item.name}`, '', '```ts');
      if (kind === 'Class' || kind === 'Interface') lines.push(declaration(item).replace(/\s*$/, ''));
      else lines.push(declaration(item));
      lines.push('```', '');
      if (doc.summary) lines.push(links(doc.summary), '');
      if (doc.default !== undefined) lines.push(`Default: ${links(doc.default)}`, '');
      if (doc.deprecated) lines.push(`**Deprecated:** ${doc.deprecated}`, '');
      if (kind === 'Class' || kind === 'Interface') {
        renderProperties(item.members, lines);
        renderCallables(item.members, lines, '####');
      }
      if (kind === 'Function') renderCallables([{ ...item, kind: 'Method' }], lines, '####');
    }
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** Every documentable item without a description: `Kind name` or `Kind owner.member`. */
export function undocumented(model) {
  const missing = [];
  for (const item of model.members[0].members) {
    if (!parseDoc(item.docComment).summary) missing.push(`${item.kind} ${item.name}`);
    for (const member of item.members ?? []) {
      if (member.kind === 'Constructor') continue;
      if (!parseDoc(member.docComment).summary) missing.push(`${member.kind} ${item.name}.${member.name}`);
    }
  }
  return missing;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const page = render(docModel());
  if (process.argv.includes('--check')) {
    const committed = readFileSync(REFERENCE, 'utf8');
    if (committed !== page) {
      console.error(
        `${REFERENCE} is stale: the JSDoc changed. Run 'npm run build && npm run docs:api' and commit it.`,
      );
      process.exit(1);
    }
  } else {
    writeFileSync(REFERENCE, page);
    console.log(`wrote ${REFERENCE}`);
  }
}

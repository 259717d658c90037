// Recorded statuses (test/unit/gitops/fixtures/recorded/*.jsonl): every EtcdCluster and EtcdRestore object the
// controller wrote during an e2e run, each with the stage the test was in, and the check of what Argo CD, kstatus
// and Flux make of them against what each stage allows (test/health/expectations.ts).
//
// A file is JSON lines: a header {"scenario", "source", "recorded", "stages"}, then one {"stage", "stretch",
// "object"} per object in the order the API server wrote them. Objects keep apiVersion, kind, spec and status whole; metadata
// keeps name, namespace, uid, generation, resourceVersion and deletionTimestamp. A write that changed nothing but
// the members' DB sizes (every pass while writers run) is not recorded again.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../env/binaries.js';

export const recordedDir = join(repoRoot, 'test', 'unit', 'gitops', 'fixtures', 'recorded');

// biome-ignore lint/suspicious/noExplicitAny: recorded objects are untyped JSON
export type RecordedObject = Record<string, any> & {
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly generation?: number;
    readonly resourceVersion?: string;
  };
};

export interface RecordedEntry {
  readonly stage: string;
  /** Which time the test entered a stage: the index of that entry in `Recording.stages` (a label entered twice is
   *  two stretches, each judged on its own). */
  readonly stretch: number;
  readonly object: RecordedObject;
}

export interface Recording {
  readonly scenario: string;
  /** The e2e file that recorded it. */
  readonly source: string;
  readonly recorded: string;
  /** Stage labels in the order the test entered them (a label may come more than once). */
  readonly stages: readonly string[];
  readonly entries: readonly RecordedEntry[];
}

/** The object as a fixture keeps it. */
export function reduceObject(object: RecordedObject): RecordedObject {
  const { name, namespace, uid, generation, resourceVersion, deletionTimestamp } = object.metadata as Record<
    string,
    unknown
  >;
  const metadata = Object.fromEntries(
    Object.entries({ name, namespace, uid, generation, resourceVersion, deletionTimestamp }).filter(
      ([, value]) => value !== undefined,
    ),
  ) as RecordedObject['metadata'];
  const { apiVersion, kind, spec, status } = object;
  return { apiVersion, kind, metadata, spec, ...(status === undefined ? {} : { status }) };
}

/** The object without what changes on every pass that writers run: resourceVersion and the members' DB sizes. */
export function essence(object: RecordedObject): string {
  const { resourceVersion: _rv, ...metadata } = object.metadata;
  const members = object.status?.members?.map(
    ({ dbSize: _size, dbSizeInUse: _inUse, ...member }: Record<string, unknown>) => member,
  );
  const status = object.status && members ? { ...object.status, members } : object.status;
  return JSON.stringify({ ...object, metadata, status });
}

export function writeRecording(path: string, recording: Recording): void {
  const { entries, ...header } = recording;
  const lines = [JSON.stringify(header), ...entries.map((entry) => JSON.stringify(entry))];
  writeFileSync(path, `${lines.join('\n')}\n`);
}

export function readRecording(path: string): Recording {
  const [header, ...lines] = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const parsed = JSON.parse(header ?? '{}') as Omit<Recording, 'entries'>;
  return { ...parsed, entries: lines.map((line) => JSON.parse(line) as RecordedEntry) };
}

/** Every committed recording, by file name. */
export function recordings(): Map<string, Recording> {
  return new Map(
    readdirSync(recordedDir)
      .filter((file) => file.endsWith('.jsonl'))
      .sort()
      .map((file) => [file, readRecording(join(recordedDir, file))]),
  );
}

/** Which tool's verdict a pattern is about. */
export type Reader = 'argo' | 'kstatus' | 'flux';

/**
 * What a stage allows of one object (by `Kind/name`, else `Kind`): for each reader a sequence pattern over the
 * verdicts of that object's entries in the stage, in order. Tokens are separated by spaces: a verdict, or
 * alternatives `(A|B)`, each optionally followed by `*`, `+` or `?`. E.g. `Healthy* Progressing+ Healthy*`: still
 * Healthy until the controller saw the change, Progressing throughout it, Healthy once converged; never Degraded.
 */
export type StageExpectation = Readonly<Record<string, Readonly<Record<Reader, string>>>>;
export type ScenarioExpectations = Readonly<Record<string, StageExpectation>>;

/** The regular expression of a pattern, over verdicts each followed by one space. */
export function patternRegExp(pattern: string): RegExp {
  const parts = pattern
    .trim()
    .split(/\s+/)
    .map((token) => {
      const match = /^\(?([A-Za-z|]+)\)?([*+?]?)$/.exec(token);
      if (!match) throw new Error(`bad token ${token} in pattern ${pattern}`);
      return `(?:(?:${match[1]}) )${match[2]}`;
    });
  return new RegExp(`^${parts.join('')}$`);
}

/** The `Kind/name` or `Kind` expectation that applies to `object` in `stage`. */
function expectationFor(stage: StageExpectation, object: RecordedObject): Record<Reader, string> | undefined {
  return stage[`${object.kind}/${object.metadata.name}`] ?? stage[object.kind];
}

export interface Verdicts {
  readonly argo: readonly string[];
  readonly kstatus: readonly string[];
  readonly flux: readonly string[];
}

/**
 * Every way `recording` departs from `expectations` for the readers given: a stage without expectations, an
 * object a stage has no pattern for, or an object's verdicts in a stage that its pattern does not match (with the
 * verdicts and the conditions that led to them). Empty when everything reads as it should.
 */
export function departures(
  recording: Recording,
  expectations: ScenarioExpectations,
  verdicts: Partial<Verdicts>,
): string[] {
  const problems: string[] = [];
  // Each object's entries in each stretch of a stage, in order.
  const runs = new Map<string, number[]>();
  recording.entries.forEach((entry, index) => {
    if (recording.stages[entry.stretch] !== entry.stage)
      problems.push(`entry ${index}: stretch does not match`);
    const key = `${entry.stage}\u0000${entry.object.kind}/${entry.object.metadata.name}\u0000${entry.stretch}`;
    runs.set(key, [...(runs.get(key) ?? []), index]);
  });
  for (const stage of new Set(recording.stages)) {
    if (!expectations[stage]) problems.push(`stage ${stage}: no expectations`);
  }
  for (const [key, indexes] of runs) {
    const [stageName = '', object = ''] = key.split('\u0000');
    const stage = expectations[stageName];
    if (!stage) continue;
    const first = recording.entries[indexes[0] as number] as RecordedEntry;
    const expected = expectationFor(stage, first.object);
    if (!expected) {
      problems.push(`stage ${stageName}: no expectation for ${object}`);
      continue;
    }
    for (const reader of ['argo', 'kstatus', 'flux'] as const) {
      const all = verdicts[reader];
      if (!all) continue;
      const seen = indexes.map((index) => all[index] as string);
      if (!patternRegExp(expected[reader]).test(seen.map((v) => `${v} `).join(''))) {
        const detail = indexes.map((index, i) => `${seen[i]} ← ${summary(recording.entries[index]?.object)}`);
        problems.push(
          `stage ${stageName}, ${object}, ${reader}: expected ${expected[reader]}, got:\n    ${detail.join('\n    ')}`,
        );
      }
    }
  }
  return problems;
}

/** One line about an object's status: generation, observedGeneration, paused, phase and True conditions. */
export function summary(object: RecordedObject | undefined): string {
  if (!object) return '?';
  const status = object.status ?? {};
  const conditions = (status.conditions ?? [])
    .filter((c: { status: string }) => c.status === 'True')
    .map((c: { type: string; reason: string }) => `${c.type}:${c.reason}`)
    .join(',');
  return `rv ${object.metadata.resourceVersion} gen ${object.metadata.generation}/${status.observedGeneration}${
    object.spec?.paused ? ' paused' : ''
  } ${status.phase ?? ''} [${conditions}]`;
}

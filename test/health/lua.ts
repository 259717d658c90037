// Runs an Argo CD health script with the real Lua 5.1 interpreter, with `obj` set from a JSON object.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Lua 5.1 table constructor for a JSON value (null becomes nil, as Argo CD's converter does). */
export function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') {
    return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).map(
    ([k, v]) => `[${toLua(k)}] = ${toLua(v)}`,
  );
  return `{${entries.join(', ')}}`;
}

export interface HealthStatus {
  status: string;
  message: string;
}

/** Evaluates `script` for `obj` with `lua5.1`; fails (never skips) when the interpreter is missing. */
export function runHealthScript(script: string, obj: unknown): HealthStatus {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-gitops-lua-'));
  try {
    const harness = join(dir, 'harness.lua');
    writeFileSync(
      harness,
      `obj = ${toLua(obj)}\nlocal check = assert(loadfile(${toLua(script)}))\nlocal hs = check()\n` +
        'io.write(tostring(hs.status), "\\n", tostring(hs.message), "\\n")\n',
    );
    const run = spawnSync('lua5.1', [harness], { encoding: 'utf8' });
    assert.ifError(
      run.error &&
        new Error(`lua5.1 could not run (${run.error.message}): run 'bash test/env/bin-build/build.sh lua'`),
    );
    assert.equal(run.status, 0, `lua5.1 failed: ${run.stderr}`);
    const [status = '', message = ''] = run.stdout.split('\n');
    return { status, message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Evaluates `script` once for each of `objects` in one `lua5.1` process (each object in a function of its own, so
 * no chunk reaches Lua 5.1's limit of constants); the results in order.
 */
export function runHealthScriptOver(script: string, objects: readonly unknown[]): HealthStatus[] {
  if (objects.length === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), 'etcd-gitops-lua-'));
  try {
    const harness = join(dir, 'harness.lua');
    const makers = objects.map((obj) => `function() return ${toLua(obj)} end`);
    writeFileSync(
      harness,
      `local makers = {\n${makers.join(',\n')}\n}\nlocal check = assert(loadfile(${toLua(script)}))\n` +
        'for _, make in ipairs(makers) do\n  obj = make()\n  local hs = check()\n' +
        '  io.write(tostring(hs.status), "\\t", (string.gsub(tostring(hs.message), "[\\t\\n]", " ")), "\\n")\nend\n',
    );
    const run = spawnSync('lua5.1', [harness], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    assert.ifError(
      run.error &&
        new Error(`lua5.1 could not run (${run.error.message}): run 'bash test/env/bin-build/build.sh lua'`),
    );
    assert.equal(run.status, 0, `lua5.1 failed: ${run.stderr}`);
    const lines = run.stdout.split('\n').slice(0, objects.length);
    assert.equal(lines.length, objects.length, 'one result per object');
    return lines.map((line) => {
      const [status = '', message = ''] = line.split('\t');
      return { status, message };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

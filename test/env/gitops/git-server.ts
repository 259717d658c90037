// The environment's Git server: one bare repository served over smart HTTP by git's own `git http-backend` (Debian's
// git) behind lighttpd's CGI (Debian's lighttpd), as git-http-backend(1) documents, run inside the environment
// namespace (or on loopback without nodes), so Argo CD's repo-server and Flux's source-controller clone it as they
// clone any HTTP remote. The repository starts as this repository's dist/ under `dist/`; a test commits changes on
// `main` from a work tree of its own and pushes them to the bare repository through the file system.
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { distDir } from '../dist-manifests.js';
import { type Environment, processPlace } from '../environment.js';
import { inNetns } from '../nodes/netns.js';
import { freePorts } from '../ports.js';
import { type ManagedProcess, startProcess } from '../process-group.js';
import { waitFor } from '../wait.js';

const execFileAsync = promisify(execFile);
const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';
const LIGHTTPD = '/usr/sbin/lighttpd';
export const GIT_BRANCH = 'main';

export interface GitRepository {
  /** The repository's URL for processes in the environment (Argo CD, Flux): `http://127.0.0.1:<port>/git/<name>.git`. */
  readonly url: string;
  /** The work tree the commits are made in (its `dist/` starts as this repository's). */
  readonly workTree: string;
  /**
   * Commits `changes` (path in the repository → new content, or `null` to delete the file) on `main` and pushes it;
   * returns the new commit's hash.
   */
  commit(message: string, changes: Readonly<Record<string, string | null>>): Promise<string>;
  /** The content of `path` at the last commit. */
  read(path: string): Promise<string>;
  /** The hash of the last commit on `main`. */
  head(): Promise<string>;
}

export interface GitServer {
  readonly process: ManagedProcess;
  /**
   * Creates the bare repository `<name>.git` from `files` (path → content) or, by default, with the synth output
   * `dist` (default: this repository's dist/) as its `dist/`.
   */
  createRepository(
    name: string,
    files?: Readonly<Record<string, string>>,
    dist?: string,
  ): Promise<GitRepository>;
  stop(): Promise<void>;
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'etcd-gitops test',
      GIT_AUTHOR_EMAIL: 'test@etcd-gitops.invalid',
      GIT_COMMITTER_NAME: 'etcd-gitops test',
      GIT_COMMITTER_EMAIL: 'test@etcd-gitops.invalid',
      // No user or system configuration of this machine changes what the tests commit.
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
  return stdout.trim();
}

/** Starts lighttpd with git http-backend in `dir` (repositories under `<dir>/repos`); stopped with the environment. */
export async function startGitServer(env: Environment, dir: string): Promise<GitServer> {
  const root = join(dir, 'repos');
  await mkdir(root, { recursive: true });
  const [port] = await freePorts(1);
  const config = join(dir, 'lighttpd.conf');
  // Every repository under `root` is exported read-only (no receive-pack over HTTP: the tests push by file path).
  await writeFile(
    config,
    [
      `server.document-root = "${root}"`,
      `server.bind = "127.0.0.1"`,
      `server.port = ${port}`,
      `server.errorlog = "${join(dir, 'lighttpd-error.log')}"`,
      `server.pid-file = "${join(dir, 'lighttpd.pid')}"`,
      `server.modules = ("mod_alias", "mod_cgi", "mod_setenv")`,
      `alias.url = ("/git" => "${HTTP_BACKEND}")`,
      `$HTTP["url"] =~ "^/git" {`,
      `  cgi.assign = ("" => "")`,
      `  setenv.add-environment = ("GIT_PROJECT_ROOT" => "${root}", "GIT_HTTP_EXPORT_ALL" => "")`,
      `}`,
      '',
    ].join('\n'),
  );
  const inside = processPlace(env);
  const server = env.controlPlane.adopt(
    startProcess({
      netns: inside.netns,
      name: 'git-server',
      command: LIGHTTPD,
      args: ['-D', '-f', config],
      env: inside.env,
      logPath: join(dir, 'git-server.log'),
    }),
  );
  const base = `http://127.0.0.1:${port}/git`;
  return {
    process: server,
    createRepository: async (name, files, dist = distDir) => {
      const bare = join(root, `${name}.git`);
      const workTree = join(dir, 'work', name);
      await git(dir, ['init', '--quiet', '--bare', `--initial-branch=${GIT_BRANCH}`, bare]);
      await git(dir, ['clone', '--quiet', bare, workTree]);
      await git(workTree, ['checkout', '--quiet', '-B', GIT_BRANCH]);
      // So that a person committing in the work tree (`npm run demo -- --gitops=…`) needs no identity of their own.
      await git(workTree, ['config', 'user.name', 'etcd-gitops demo']);
      await git(workTree, ['config', 'user.email', 'demo@etcd-gitops.invalid']);
      if (files) {
        for (const [path, content] of Object.entries(files)) {
          await mkdir(dirname(join(workTree, path)), { recursive: true });
          await writeFile(join(workTree, path), content);
        }
      } else {
        await cp(dist, join(workTree, 'dist'), { recursive: true });
      }
      await git(workTree, ['add', '--all']);
      await git(workTree, ['commit', '--quiet', '-m', `${name}: first commit`]);
      await git(workTree, ['push', '--quiet', 'origin', GIT_BRANCH]);
      const repository: GitRepository = {
        url: `${base}/${name}.git`,
        workTree,
        commit: async (message, changes) => {
          for (const [path, content] of Object.entries(changes)) {
            const file = join(workTree, path);
            if (content === null) {
              await rm(file);
            } else {
              await mkdir(dirname(file), { recursive: true });
              await writeFile(file, content);
            }
          }
          await git(workTree, ['add', '--all']);
          await git(workTree, ['commit', '--quiet', '-m', message]);
          await git(workTree, ['push', '--quiet', 'origin', GIT_BRANCH]);
          return repository.head();
        },
        read: (path) => readFile(join(workTree, path), 'utf8'),
        head: () => git(workTree, ['rev-parse', 'HEAD']),
      };
      // Served once git http-backend answers for it over HTTP, as a client inside the environment asks.
      const lsRemote = inside.netns
        ? inNetns(inside.netns, 'git', ['ls-remote', repository.url])
        : { command: 'git', args: ['ls-remote', repository.url] };
      await waitFor(
        async () => {
          const { stdout } = await execFileAsync(lsRemote.command, lsRemote.args, {
            env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
          }).catch(() => ({ stdout: '' }));
          return stdout.includes(`refs/heads/${GIT_BRANCH}`);
        },
        { what: `the Git server to serve ${name}.git`, timeoutMs: 15_000, intervalMs: 200 },
      );
      return repository;
    },
    stop: () => server.stop(),
  };
}

#!/usr/bin/env node
// The single entrypoint of our image, `/app/bin/etcd-gitops <subcommand>`. Keep it a dispatcher:
// each subcommand resolves its exit code (or exits by itself).
import { Subcommand } from '../constructs/conventions/cli/commands.js';

const [subcommand, ...args] = process.argv.slice(2);

const subcommands: Record<string, () => Promise<number | undefined>> = {
  [Subcommand.CONTROLLER]: async () => {
    // Before the controller's modules load: the flags concern the code they bring (runtime/v8-flags.ts).
    (await import('./runtime/v8-flags.js')).useControllerV8Flags();
    return (await import('./main.js')).main(args);
  },
  [Subcommand.BACKUP]: async () => (await import('./backup/cli.js')).main(args),
  [Subcommand.RESTORE]: async () => (await import('./restore/cli.js')).main(args),
  [Subcommand.DEFRAG]: async () => (await import('./defrag/cli.js')).main(args),
  [Subcommand.DRILL]: async () => (await import('./drill/cli.js')).main(args),
};

const start = subcommands[subcommand ?? ''];
if (!start) {
  process.stderr.write(`usage: etcd-gitops ${Object.keys(subcommands).join('|')} ...\n`);
  process.exit(2);
}
const code = await start();
// Keep-alive sockets and timers of the clients must not hold an exiting process.
if (code !== undefined) process.exit(code);

// V8 flags of the controller process, set by the dispatcher (controller/cli.ts) before the controller's first import.
import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags of `etcd-gitops controller`. `--no-opt` turns off TurboFan, V8's optimizing compiler: a controller pass
 * waits on the API server and etcd, not on its own code, and the compiler's code and working memory stay resident.
 * A Node.js 22 process that only imports the controller's clients idles at 101–103 MiB with it and 120–123 MiB
 * without (2026-11-28, the shipped `NODE_OPTIONS`; README, Performance). The backup, restore and defrag commands keep
 * V8's defaults: a backup streams its snapshot through JavaScript and took 9% longer without TurboFan (256 MiB,
 * four saves of each, interleaved), and a third longer since it uploads through our own writer (ADR 0008). Node.js
 * refuses V8 flags other than a few in `NODE_OPTIONS`, so they are set here, before the modules they concern are
 * loaded.
 */
export const CONTROLLER_V8_FLAGS: readonly string[] = ['--no-opt'];

/** Sets `CONTROLLER_V8_FLAGS` in this process; call it before importing the controller. */
export function useControllerV8Flags(): void {
  for (const flag of CONTROLLER_V8_FLAGS) setFlagsFromString(flag);
}

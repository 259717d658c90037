// TEST-ONLY: `ETCD_GITOPS_TEST_CRASH_AFTER=<action kind>[:<n>]` SIGKILLs this process right after the n-th
// (default first) successful execution of that action, so the crash tests can stop the controller between any
// two steps (`backup save` uses it with its own steps and variable). The constructs never set it; unset, this
// does nothing.
import type { ActionKind } from './types.js';

export interface CrashSwitch<Step extends string = ActionKind> {
  /** Called after an action's side effect succeeded. */
  after(kind: Step): void;
}

export function crashSwitchFromEnv<Step extends string = ActionKind>(
  value = process.env.ETCD_GITOPS_TEST_CRASH_AFTER,
  kill: () => void = () => process.kill(process.pid, 'SIGKILL'),
): CrashSwitch<Step> {
  if (!value) return { after: () => undefined };
  const [kind, count] = value.split(':');
  let remaining = count ? Number(count) : 1;
  return {
    after(done) {
      if (done !== kind) return;
      remaining -= 1;
      if (remaining === 0) kill();
    },
  };
}

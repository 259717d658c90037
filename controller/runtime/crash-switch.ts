// TEST-ONLY: a crash switch SIGKILLs this process right after the n-th (default first) successful execution of one
// step, so the crash tests can stop the controller between any two steps. Each user reads its own variable with its
// own step names: the membership executor `ETCD_GITOPS_TEST_CRASH_AFTER=<action kind>[:<n>]` (the default here), the
// EtcdRestore reconciler `ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER`, `backup save` `ETCD_GITOPS_TEST_BACKUP_CRASH_AFTER`.
// The constructs never set them; unset, a switch does nothing.

export interface CrashSwitch<Step extends string = string> {
  /** Called after an action's side effect succeeded. */
  after(kind: Step): void;
}

export function crashSwitchFromEnv<Step extends string = string>(
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

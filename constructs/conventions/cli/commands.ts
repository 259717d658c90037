// The subcommands and verbs of our image's entrypoint (`/app/bin/etcd-gitops <subcommand> [verb] --flags`).

export const Subcommand = {
  CONTROLLER: 'controller',
  BACKUP: 'backup',
  RESTORE: 'restore',
  DEFRAG: 'defrag',
  DRILL: 'drill',
} as const;

export const BackupVerb = { SAVE: 'save', STATUS: 'status' } as const;
export const RestoreVerb = { FETCH: 'fetch', FROM_MEMBER: 'from-member' } as const;
export const DrillVerb = { FETCH: 'fetch', CHECK: 'check' } as const;

// The message keys of the tasks module (docs/tasks.md): every refused move of a task
// is a 409 whose key names the state it conflicts with.

export const TASK_KEYS = {
  notFoundByPKey: 'svc.common.tasks.notFoundByPKey',
  alreadyExists: 'svc.common.tasks.alreadyExists',
  alreadyStarted: 'svc.common.tasks.alreadyStarted',
  alreadyPaused: 'svc.common.tasks.alreadyPaused',
  isPaused: 'svc.common.tasks.isPaused',
  isNotPaused: 'svc.common.tasks.isNotPaused',
  notActive: 'svc.common.tasks.notActive',
  alreadyFinished: 'svc.common.tasks.alreadyFinished',
} as const;

export type TaskKey = (typeof TASK_KEYS)[keyof typeof TASK_KEYS];

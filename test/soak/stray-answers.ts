// etcd3 (1.1.2) throws from inside its watch stream's 'data' handler when an answer names a watch it does not know
// (`Failed to find watcher for IWatchResponse`, or a creation answer with no watch waiting for one). Thrown there,
// no caller can catch it and the process dies: seed 3 of the soak died so at step 99, while a member was removed
// with a node cut off. etcd's own Go client drops such an answer instead. An answer for no watch etcd3 knows carries
// nothing a watch of ours is owed: a watch that was given up on is muted anyway, and one etcd3 still holds resumes
// from its own last revision after a reconnect. This wraps one client's watch manager (etcd3's internal
// `watchManager`, checked to be there) so such an answer is dropped and told to `onStray`, which the soak's watcher
// answers with a resync. Only the soak's watcher uses it: the product never watches etcd.
import type { Etcd3 } from 'etcd3';
import { ClientRuntimeError } from 'etcd3';

type Handler = (response: unknown) => void;
interface WatchManagerInternals {
  handleResponse: Handler;
  handleCreatedResponse: Handler;
}

const wrapped = new WeakSet<object>();

/** Makes `client`'s watch stream drop answers etcd3 cannot place, telling each to `onStray` (once per client). */
export function dropStrayWatchAnswers(client: Etcd3, onStray: (message: string) => void): void {
  const manager = (client as unknown as { watchManager?: Partial<WatchManagerInternals> }).watchManager;
  if (typeof manager?.handleResponse !== 'function' || typeof manager.handleCreatedResponse !== 'function')
    throw new Error(
      'etcd3 has no watchManager.handleResponse/handleCreatedResponse: the stray-answer guard needs updating',
    );
  if (wrapped.has(manager)) return;
  wrapped.add(manager);
  for (const name of ['handleResponse', 'handleCreatedResponse'] as const) {
    const original = (manager[name] as Handler).bind(manager);
    manager[name] = (response) => {
      try {
        original(response);
      } catch (error) {
        if (!(error instanceof ClientRuntimeError)) throw error;
        onStray(`etcd3 dropped a watch answer it could not place: ${error.message}`);
      }
    };
  }
}

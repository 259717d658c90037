/* The sandbox ("pause") container of every Pod: holds the Pod's namespaces and does nothing else. As PID 1 of
 * the Pod it reaps orphaned children (SIGCHLD: waitpid until none is left) and exits 0 on SIGINT or SIGTERM;
 * every other signal keeps its default. Compiled static (gcc -static -O2), so its image needs no library. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signal) {
  (void)signal;
  _exit(0);
}

static void reap(int signal) {
  int saved = errno;
  (void)signal;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  errno = saved;
}

static int handle(int signal, void (*handler)(int)) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART | (signal == SIGCHLD ? SA_NOCLDSTOP : 0);
  return sigaction(signal, &action, NULL);
}

int main(void) {
  if (handle(SIGINT, stop) < 0 || handle(SIGTERM, stop) < 0 || handle(SIGCHLD, reap) < 0) {
    perror("pause: sigaction");
    return 1;
  }
  for (;;) pause();
}

/* The sandbox ("pause") container of every Pod: holds the Pod's namespaces, reaps orphans, exits on SIGINT or
 * SIGTERM. Compiled static, so its image needs nothing else. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signal) {
  (void)signal;
  _exit(0);
}

static void reap(int signal) {
  (void)signal;
  while (waitpid(-1, 0, WNOHANG) > 0) {
  }
}

int main(void) {
  signal(SIGINT, stop);
  signal(SIGTERM, stop);
  signal(SIGCHLD, reap);
  for (;;) pause();
  return 0;
}

// Preloaded into every test file's process (scripts/run-tests.mjs): stdout and stderr written synchronously.
// With --test-force-exit a file's process exits as soon as its last test ends; its results travel to the runner
// over a stdout pipe, and writes still queued at that moment were lost: tests ran but were never reported, and the
// run passed with a smaller count (nodejs/node#64833; seen here as 37 of 47 tests of one file on Node 20.20).
// Blocking writes leave nothing queued at exit.
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);

// The kubelet's `terminationMessagePolicy: FallbackToLogsOnError`: a container that failed gets the tail of the log
// of that run as its terminated state's `message` (at most 80 lines and 2048 bytes, as the kubelet). The agent does
// not mount a `terminationMessagePath` file, so the log is the only source.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

export const FALLBACK_LOG_LINES = 80;
export const FALLBACK_LOG_BYTES = 2048;

/** Where the next run's output starts in an appended container log. */
export function logOffset(logPath: string): number {
  return existsSync(logPath) ? statSync(logPath).size : 0;
}

/** The last lines of `text`, at most {@link FALLBACK_LOG_LINES} lines and {@link FALLBACK_LOG_BYTES} bytes. */
export function logTail(text: string): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const tail = `${lines.slice(-FALLBACK_LOG_LINES).join('\n')}\n`;
  const bytes = Buffer.from(tail);
  return bytes.length <= FALLBACK_LOG_BYTES ? tail : bytes.subarray(-FALLBACK_LOG_BYTES).toString();
}

/** The termination message of one failed run whose output began at `offset`, or `undefined` for an empty log. */
export function fallbackMessage(logPath: string, offset: number): string | undefined {
  if (!existsSync(logPath)) return undefined;
  const size = statSync(logPath).size;
  const start = Math.max(offset, size - 64 * 1024);
  if (size <= start) return undefined;
  const buffer = Buffer.alloc(size - start);
  const fd = openSync(logPath, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  const text = buffer.toString();
  return text.trim() === '' ? undefined : logTail(text);
}

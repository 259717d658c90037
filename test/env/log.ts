// The test environment's default logger: pino on stderr, level from $ENV_LOG_LEVEL (default warn).
import { type Logger, pino } from 'pino';

export type { Logger };

export function defaultLogger(level = process.env.ENV_LOG_LEVEL ?? 'warn'): Logger {
  return pino({ name: 'test-env', level }, pino.destination(2));
}

// One-line JSON logs on stderr, filtered by LOG_LEVEL.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

let threshold: number = LEVELS.info;

export function setLogLevel(level: Level): void {
  threshold = LEVELS[level];
}

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
}

export const log = {
  debug: (message: string, fields: Record<string, unknown> = {}): void => write("debug", message, fields),
  info: (message: string, fields: Record<string, unknown> = {}): void => write("info", message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}): void => write("warn", message, fields),
  error: (message: string, fields: Record<string, unknown> = {}): void => write("error", message, fields),
};

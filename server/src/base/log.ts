// One-line JSON logs on stderr, filtered by LOG_LEVEL.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

let threshold: number = LEVELS.info;

export function setLogLevel(level: Level): void {
  threshold = LEVELS[level];
}

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`,
  );
}

const bursts = new Map<string, { until: number; suppressed: number }>();
/** How long one kind of failure is reported once, however often it recurs. */
const BURST_MS = 10_000;

/**
 * Logs the first of a burst of like failures (same key) and then one line per BURST_MS that
 * counts the others, so an outage of many requests is a few lines, not one stack per request.
 */
function throttled(
  level: Level,
  key: string,
  message: string,
  fields: Record<string, unknown>,
): void {
  const now = Date.now();
  const burst = bursts.get(key);
  if (burst && now < burst.until) {
    burst.suppressed += 1;
    return;
  }
  const suppressed = burst?.suppressed ?? 0;
  bursts.set(key, { until: now + BURST_MS, suppressed: 0 });
  write(
    level,
    message,
    suppressed > 0 ? { ...fields, repeated_since_last_report: suppressed } : fields,
  );
}

export const log = {
  throttled,
  debug: (message: string, fields: Record<string, unknown> = {}): void =>
    write("debug", message, fields),
  info: (message: string, fields: Record<string, unknown> = {}): void =>
    write("info", message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}): void =>
    write("warn", message, fields),
  error: (message: string, fields: Record<string, unknown> = {}): void =>
    write("error", message, fields),
};

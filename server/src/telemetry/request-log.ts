// One line per answered request on stdout: JSON for log pipelines, or a short line for people
// (LOG_FORMAT=pretty). It names the request, never its token, body or any secret.
export interface RequestLine {
  time: string;
  level: "info" | "warn" | "error";
  request_id: string;
  trace_id: string;
  company_id: number | null;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  db_ms: number;
}

export type LogFormat = "json" | "pretty" | "off";

export function readLogFormat(value: string | undefined): LogFormat {
  const format = (value ?? "json").toLowerCase();
  if (format === "json" || format === "pretty" || format === "off") return format;
  throw new Error(`LOG_FORMAT must be json, pretty or off, not "${value}"`);
}

const levelOf = (status: number): RequestLine["level"] =>
  status >= 500 ? "error" : status >= 400 && status !== 404 && status !== 304 ? "warn" : "info";

function pretty(line: RequestLine): string {
  const company = line.company_id === null ? "" : ` company ${line.company_id}`;
  return (
    `${line.time} ${line.status} ${line.method} ${line.route} ${line.duration_ms} ms ` +
    `(db ${line.db_ms} ms)${company} ${line.request_id}\n`
  );
}

/**
 * Lines go out together once per turn of the event loop: one write to stdout for every request
 * answered meanwhile, rather than one system call per request.
 */
export class RequestLog {
  #pending = "";
  #scheduled = false;

  constructor(readonly format: LogFormat) {}

  write(fields: Omit<RequestLine, "time" | "level">): void {
    if (this.format === "off") return;
    const line: RequestLine = {
      time: new Date().toISOString(),
      level: levelOf(fields.status),
      ...fields,
    };
    this.#pending += this.format === "pretty" ? pretty(line) : `${JSON.stringify(line)}\n`;
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#pending === "") return;
    const text = this.#pending;
    this.#pending = "";
    process.stdout.write(text);
  }
}

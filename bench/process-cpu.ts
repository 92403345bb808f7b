// What a process has spent of the CPU so far, read from /proc (Linux): the bench legs that report
// CPU per request or per second of a server, the database or themselves.
import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** User plus system CPU time of a process so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name (which may hold spaces and parentheses): utime
  // and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

// What a process has spent of the CPU so far, read from /proc (Linux): the bench legs that report
// CPU per request or per second of a server, the database or themselves.
import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the parenthesised command name (which may hold spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** User plus system CPU time of a process so far, in seconds. */
export function cpuSeconds(pid: number): number {
  // utime and stime are the 12th and 13th fields after the name.
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Minor page faults of a process so far, all threads: memory it touched that the system had to map
 * for it (memory its allocator gave back and it took again; bench/README.md, "Memory given back").
 */
export const pageFaults = (pid: number): number => Number(statFields(pid)[7]);

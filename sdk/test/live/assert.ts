// Minimal assertions with no test framework, so the live checks run unchanged on Bun, Node and Deno.
import type { ErpError } from "../../mod.ts";

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

export function assertEqual<T>(actual: T, expected: T, message = "values differ"): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`assertion failed: ${message}\n  actual:   ${a}\n  expected: ${e}`);
}

/** Awaits a call that must fail with `ErrorClass`, and returns the error. */
export async function assertRejects<E extends ErpError>(
  call: Promise<unknown>,
  ErrorClass: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ErrorClass) return error;
    throw new Error(`expected ${ErrorClass.name}, got ${String(error)}`);
  }
  throw new Error(`expected ${ErrorClass.name}, but the call succeeded`);
}

// Helpers for the write-rule suites: problem assertions, company snapshots, auto-increment probes.
import { expect } from "bun:test";
import type { RowDataPacket } from "mysql2";
import type { Api, ApiResponse } from "./api.ts";
import { childrenOf, RECORD_COLLECTIONS, segmentOf } from "./collections.ts";
import { testDb } from "./company.ts";

/** The response is an RFC 9457 problem with this status and code. */
export function expectProblem(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.headers.get("content-type")).toStartWith("application/problem+json");
  expect(response.body.status).toBe(status);
  expect(response.body.type).toBe("about:blank");
  expect(typeof response.body.detail).toBe("string");
}

/** Every record a company can see, sub-collections (rentals) included, so a test can prove nothing changed. */
export async function snapshot(api: Api): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  for (const name of RECORD_COLLECTIONS) {
    const resource = segmentOf(name);
    const list = await api.get(`/v1/${resource}?limit=100`);
    state[resource] = list.status === 200 ? list.body : list.status;
    if (list.status !== 200) continue;
    for (const child of childrenOf(name)) {
      for (const item of list.body.data as { id: number }[]) {
        state[`${resource}/${item.id}/${child}`] = (
          await api.get(`/v1/${resource}/${item.id}/${child}?limit=100`)
        ).body;
      }
    }
  }
  return state;
}

/** The id the next insert into `table` will get (MariaDB reports it live; MySQL 8 is told not to cache). */
export async function nextAutoIncrement(table: string): Promise<number> {
  const { pool } = testDb();
  const connection = await pool.getConnection();
  try {
    await connection
      .query("SET SESSION information_schema_stats_expiry = 0")
      .catch(() => undefined);
    const [rows] = await connection.query<RowDataPacket[]>(
      "SELECT AUTO_INCREMENT AS next FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
      [table],
    );
    return Number(rows[0]?.next);
  } finally {
    connection.release();
  }
}

/** The stored row, deleted or not, straight from the database. */
export async function storedRow(
  table: string,
  id: number,
): Promise<Record<string, unknown> | undefined> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    `SELECT * FROM \`${table}\` WHERE id = ?`,
    [id],
  );
  return rows[0];
}

/** Walks a record through statuses with one PATCH each, failing loudly on a refusal. */
export async function walk(api: Api, path: string, statuses: readonly string[]): Promise<void> {
  for (const status of statuses) {
    const response = await api.patch(path, { status });
    if (response.status !== 200)
      throw new Error(`PATCH ${path} status ${status} → ${response.status} ${response.text}`);
  }
}

/** The request's problem body without the parts that differ per request. */
export function comparable(response: ApiResponse): unknown {
  if (response.status < 400) return { status: response.status };
  const { request_id: _requestId, ...rest } = response.body as Record<string, unknown>;
  return { status: response.status, ...rest };
}

// The seeded workers of the bench's company: rows loaded straight into the database.
import { recountLiveRecords, type DatabaseHandle } from "@erp/server/admin";

/** `count` workers of the company, 500 per INSERT; answers their ids in order. */
export async function seedWorkers(
  db: DatabaseHandle,
  companyId: number,
  count: number,
): Promise<number[]> {
  const now = new Date();
  const rows = Array.from({ length: count }, (_, i) => [
    companyId,
    `Seeded worker ${i}`,
    `seed${i}@example.com`,
    "ACTIVE",
    now,
    now,
  ]);
  for (let i = 0; i < rows.length; i += 500) {
    await db.pool.query(
      "INSERT INTO workers (company_id, name, email, status, created_at, updated_at) VALUES ?",
      [rows.slice(i, i + 500)],
    );
  }
  // Rows loaded around the API: the counters its writes keep are set from them once.
  await recountLiveRecords(db.db, companyId);
  const [ids] = await db.pool.query("SELECT id FROM workers WHERE company_id = ? ORDER BY id", [
    companyId,
  ]);
  return (ids as { id: number }[]).map((row) => Number(row.id));
}

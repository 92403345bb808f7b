// Record ids this process hands out itself, from blocks it reserves in id_blocks with one
// autocommitted statement (the way Vitess sequences and Hibernate's pooled ids work). A write
// then knows its records' ids before it sends anything: a batch's multi-row INSERT needs no
// read-back of auto-increment values (which MySQL 8 and Galera do not promise consecutive), and
// a whole transaction can go to the database in one round trip. Ids grow within a process; ids
// of different processes interleave, as auto-increment ids of Galera nodes do.
import type { ResultSetHeader } from "mysql2";
import { databaseErrorKind } from "./errors.ts";
import type { GuardedPool } from "./pool.ts";

/** Ids a single write reserves at a time; a block larger than a request asks for is reserved whole. */
const BLOCK_SIZE = 100;
/**
 * A request for more than a block (a batch) reserves ids for this many requests of its size: each
 * reservation is a commit of its own, a round trip and a log flush (about 2 ms, 10 ms at p90 on a
 * loaded machine, against 20-30 ms for a whole 500-row batch), so consecutive batches of an import
 * pay it once in eight instead of every time. At most this many batches' ids are left unused when
 * the process ends.
 */
const BATCHES_AHEAD = 8;

/** How many ids to reserve when `count` do not fit in what is left. */
const reservationSize = (count: number): number =>
  count <= BLOCK_SIZE ? BLOCK_SIZE : count * BATCHES_AHEAD;
const ATTEMPTS = 5;

interface Block {
  next: number;
  end: number;
}

export class IdAllocator {
  readonly #blocks = new Map<string, Block>();
  /** One reservation per table at a time; later callers wait for it. */
  readonly #reserving = new Map<string, Promise<void>>();

  constructor(private readonly pool: GuardedPool) {}

  /** The first of `count` consecutive ids of `table`, none ever handed out before. */
  async take(table: string, count: number): Promise<number> {
    for (;;) {
      const block = this.#blocks.get(table);
      if (block && block.end - block.next >= count) {
        const first = block.next;
        block.next += count;
        return first;
      }
      const pending = this.#reserving.get(table);
      if (pending) {
        await pending;
        continue;
      }
      // What is left of the current block is dropped, so this process's ids keep growing.
      const reservation = this.#reserve(table, reservationSize(count)).finally(() =>
        this.#reserving.delete(table),
      );
      this.#reserving.set(table, reservation);
      await reservation;
    }
  }

  /**
   * Moves the table's next id past every id in use and drops this process's block: for when an
   * insert found one of its ids taken (a row written by something that used AUTO_INCREMENT).
   */
  async resync(table: string): Promise<void> {
    this.#blocks.delete(table);
    await this.pool.query(
      `UPDATE id_blocks SET next_id = GREATEST(next_id, (SELECT COALESCE(MAX(id), 0) + 1 FROM ` +
        `\`${table}\`)) WHERE table_name = ?`,
      [table],
    );
  }

  async #reserve(table: string, size: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        // LAST_INSERT_ID(expr) makes the driver report the new next_id, in the same statement.
        const [result] = await this.pool.query(
          "UPDATE id_blocks SET next_id = LAST_INSERT_ID(next_id + ?) WHERE table_name = ?",
          [size, table],
        );
        const { affectedRows, insertId } = result as ResultSetHeader;
        if (affectedRows === 1) {
          this.#blocks.set(table, { next: Number(insertId) - size, end: Number(insertId) });
          return;
        }
        // The table's first reservation: its ids start after the highest one already used.
        await this.pool.query(
          `INSERT INTO id_blocks (table_name, next_id) SELECT ?, COALESCE(MAX(id), 0) + 1 FROM ` +
            `\`${table}\` ON DUPLICATE KEY UPDATE next_id = next_id`,
          [table],
        );
      } catch (error) {
        // Two cluster nodes reserving at once: certification lets one commit; the other asks again.
        if (databaseErrorKind(error) !== "retryable" || attempt >= ATTEMPTS) throw error;
        await Bun.sleep(Math.random() * 10 * attempt);
      }
    }
  }
}

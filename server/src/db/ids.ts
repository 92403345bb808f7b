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
 * pay it once in eight instead of every time.
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

/**
 * A take that leaves fewer ids than it took reserves the next block at once, in the background,
 * while its own write runs: the write after it finds the block there instead of paying the
 * reservation's round trip and log flush itself (a slow one was a batch's p99). At most the rest of
 * the current block and one block ahead are left unused when the process ends.
 */
export class IdAllocator {
  readonly #blocks = new Map<string, Block>();
  /** The block reserved ahead for when the current one runs out; its ids follow the current ones. */
  readonly #ahead = new Map<string, Block>();
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
        if (block.end - block.next < count && !this.#ahead.has(table))
          // A failed reservation ahead is made again by the take that needs it.
          this.#reservation(table, count).catch(() => {});
        return first;
      }
      // What is left of the current block is dropped, so this process's ids keep growing.
      const ahead = this.#ahead.get(table);
      if (ahead && ahead.end - ahead.next >= count) {
        this.#ahead.delete(table);
        this.#blocks.set(table, ahead);
        continue;
      }
      this.#ahead.delete(table);
      await this.#reservation(table, count);
    }
  }

  /**
   * Moves the table's next id past every id in use and drops this process's blocks: for when an
   * insert found one of its ids taken (a row written by something that used AUTO_INCREMENT).
   */
  async resync(table: string): Promise<void> {
    await this.#reserving.get(table)?.catch(() => {});
    this.#blocks.delete(table);
    this.#ahead.delete(table);
    await this.pool.query(
      `UPDATE id_blocks SET next_id = GREATEST(next_id, (SELECT COALESCE(MAX(id), 0) + 1 FROM ` +
        `\`${table}\`)) WHERE table_name = ?`,
      [table],
    );
  }

  /** The table's reservation under way, or a new one of a size for takes of `count`: its block goes ahead. */
  #reservation(table: string, count: number): Promise<void> {
    let pending = this.#reserving.get(table);
    if (!pending) {
      pending = this.#reserve(table, reservationSize(count))
        .then((block) => void this.#ahead.set(table, block))
        .finally(() => this.#reserving.delete(table));
      this.#reserving.set(table, pending);
    }
    return pending;
  }

  async #reserve(table: string, size: number): Promise<Block> {
    for (let attempt = 1; ; attempt++) {
      try {
        // LAST_INSERT_ID(expr) makes the driver report the new next_id, in the same statement.
        const [result] = await this.pool.query(
          "UPDATE id_blocks SET next_id = LAST_INSERT_ID(next_id + ?) WHERE table_name = ?",
          [size, table],
        );
        const { affectedRows, insertId } = result as ResultSetHeader;
        if (affectedRows === 1) return { next: Number(insertId) - size, end: Number(insertId) };
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

// The connection pool and the drizzle handle every module shares.
import mysql from "mysql2/promise";
import { drizzle, type MySql2Database } from "drizzle-orm/mysql2";
import * as schema from "./schema.ts";

export type Database = MySql2Database<typeof schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  pool: mysql.Pool;
  close(): Promise<void>;
}

export function connectDatabase(url: string, connectionLimit = 10): DatabaseHandle {
  const pool = mysql.createPool({
    uri: url,
    connectionLimit,
    // Timestamps are stored and read as UTC; DATE columns stay YYYY-MM-DD strings.
    timezone: "Z",
    dateStrings: ["DATE"],
    decimalNumbers: false,
    supportBigNumbers: true,
    enableKeepAlive: true,
  });
  pool.on("connection", (connection) => {
    connection.query("SET time_zone = '+00:00'");
  });
  const db = drizzle(pool, { schema, mode: "default" });
  return { db, pool, close: () => pool.end() };
}

// Platformatic DB, the peer of `bun run bench --peers` (bench/peers.ts), run by the Node >= 22 that
// bench/peers.ts installs from npm beside it. It serves one table, PEERS_TABLE, of DATABASE_URL
// (REST and GraphQL, no auth) and prints "listening on http://127.0.0.1:<port>" as our servers do.
// Env: PEERS_DIR (the folder whose node_modules hold @platformatic/db), DATABASE_URL, PEERS_TABLE.
import path from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.PEERS_DIR;
const entry = pathToFileURL(path.join(dir, "node_modules/@platformatic/db/index.js")).href;
const { create } = await import(entry);
const app = await create(dir, {
  server: { hostname: "127.0.0.1", port: 0, logger: { level: "warn" } },
  db: {
    connectionString: process.env.DATABASE_URL,
    include: { [process.env.PEERS_TABLE]: true },
    graphql: true,
    openapi: true,
  },
});
await app.init?.();
await app.start({ listen: true });
// Its own URL names the address it bound as 0.0.0.0 on some versions: only the port is taken.
console.log(`listening on http://127.0.0.1:${new URL(app.url).port}`);

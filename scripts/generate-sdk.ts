// `bun run generate`: regenerates the SDK's generated files from the OpenAPI document this checkout's
// server would serve, built in process (no database, no listening server). Run it after any change to
// a definition, a schema or a route's documentation; the SDK's drift test fails until you do.
import { buildApp } from "../server/src/app.ts";
import { connectDatabase } from "../server/src/db/client.ts";
import { UsageMeter } from "../server/src/metering/usage-meter.ts";

// Never connected: building the app and serving the document run no statement.
const database = connectDatabase("mysql://generate@127.0.0.1:1/none");
const app = buildApp({ database, meter: new UsageMeter(database.db) });
const response = await app.handle(new Request("http://localhost/v1/openapi.json"));
if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
const file = `${process.env.TMPDIR ?? "/tmp"}/erp-openapi-${process.pid}.json`;
await Bun.write(file, await response.text());
const generator = Bun.spawnSync(
  [process.execPath, `${import.meta.dir}/../sdk/scripts/generate-types.ts`, file],
  { stdio: ["inherit", "inherit", "inherit"] },
);
await database.close();
process.exit(generator.exitCode ?? 1);

// One server per test file, started before and stopped after its tests.
import { afterAll, beforeAll } from "bun:test";
import { Api } from "./api.ts";
import { closeTestDb } from "./company.ts";
import { startServer, type RunningServer, type ServerOptions } from "./server.ts";

export interface Suite {
  server: RunningServer;
  api: Api;
}

export function useServer(options: ServerOptions = {}): Suite {
  const suite = {} as Suite;
  beforeAll(async () => {
    suite.server = await startServer(options);
    suite.api = new Api(suite.server.baseUrl);
  });
  afterAll(async () => {
    await suite.server?.stop();
    await closeTestDb();
  });
  return suite;
}

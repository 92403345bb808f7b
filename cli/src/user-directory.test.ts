// `bun run erp` and `npm run erp` start the CLI in the checkout; it goes back where the user was.
import { expect, test } from "bun:test";
import { userDirectory } from "./user-directory.ts";

const checkout = "/home/ann/erp";
const runner = { npm_lifecycle_event: "erp", npm_package_json: `${checkout}/package.json` };

test("bun says where the user was in npm_config_local_prefix, npm in INIT_CWD", () => {
  const bun = {
    ...runner,
    npm_config_user_agent: "bun/1.4.4 npm/? node/v26",
    npm_config_local_prefix: "/home/ann/data",
  };
  expect(userDirectory(bun, checkout)).toBe("/home/ann/data");
  expect(userDirectory({ ...runner, INIT_CWD: "/tmp/files" }, checkout)).toBe("/tmp/files");
});

test("started directly, by another script, or after a cd of the script's own: no move", () => {
  expect(userDirectory({}, "/anywhere")).toBeUndefined();
  expect(
    userDirectory({ ...runner, npm_lifecycle_event: "load", INIT_CWD: "/x" }, checkout),
  ).toBeUndefined();
  expect(userDirectory({ ...runner, INIT_CWD: "/x" }, `${checkout}/data`)).toBeUndefined();
});

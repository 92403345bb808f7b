// The catalogue is the one list of refusals: docs/errors.md explains each code under the status
// the catalogue gives it, and no other module makes a refusal of its own.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { CATALOGUE } from "./catalogue.ts";

const SERVER_SRC = path.resolve(import.meta.dir, "..");

test("docs/errors.md explains every code of the catalogue with its status", () => {
  const guide = readFileSync(path.resolve(SERVER_SRC, "../../docs/errors.md"), "utf8");
  const documented = new Map(
    [...guide.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map(([, status, code]) => [
      code!,
      Number(status),
    ]),
  );
  expect(
    Object.fromEntries(Object.keys(CATALOGUE).map((code) => [code, documented.get(code)])),
  ).toEqual(CATALOGUE);
  expect([...documented.keys()].filter((code) => !(code in CATALOGUE))).toEqual([]);
});

test("only the catalogue constructs a refusal", () => {
  const makers = readdirSync(SERVER_SRC, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .filter((file) => /new Refusal\(/.test(readFileSync(path.join(SERVER_SRC, file), "utf8")));
  expect(makers).toEqual([path.join("refusals", "catalogue.ts")]);
});

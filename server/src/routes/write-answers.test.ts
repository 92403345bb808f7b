// The answers of record write outcomes, byte for byte: a keyed write stores these bytes and its replay
// sends them again, so the order of the fields and which headers come are part of the contract.
import { expect, test } from "bun:test";
import { etagOf } from "../http/etag.ts";
import type { StoredRecord } from "../resources/definition.ts";
import { recordDocument } from "../writes/preconditions.ts";
import { recordAnswer } from "./write-answers.ts";

const record: StoredRecord = { id: 7, name: "Crane", updated_at: "2026-11-26T09:00:00.000Z" };
const json = JSON.stringify(record);
const etag = etagOf(recordDocument(record));
const sent = (answer: ReturnType<typeof recordAnswer>) => ({
  status: answer.status,
  headers: answer.headers,
  body: JSON.stringify(answer.body),
});

test("a create is 201 with Location and ETag; its record only when asked for; its preview 200", () => {
  const created = { kind: "created", record } as const;
  expect(sent(recordAnswer(created, { collection: "/v1/equipment" }))).toEqual({
    status: 201,
    headers: { location: "/v1/equipment/7", etag },
    body: '{"data":{"id":7,"created":true,"dry_run":false}}',
  });
  expect(
    sent(recordAnswer(created, { collection: "/v1/equipment", representation: true, upsert: true }))
      .body,
  ).toBe(`{"data":{"id":7,"created":true,"updated":false,"dry_run":false,"record":${json}}}`);
  expect(sent(recordAnswer({ kind: "create_previewed" }, { upsert: true }))).toEqual({
    status: 200,
    headers: undefined,
    body: '{"data":{"id":null,"created":false,"updated":false,"dry_run":true}}',
  });
});

test("an update says whether it wrote; a preview has no ETag", () => {
  const changes = { name: { from: "Old", to: "Crane" } };
  expect(sent(recordAnswer({ kind: "updated", record, changes }))).toEqual({
    status: 200,
    headers: { etag },
    body: `{"data":{"id":7,"updated":true,"dry_run":false,"changes":${JSON.stringify(changes)},"record":${json}}}`,
  });
  expect(sent(recordAnswer({ kind: "unchanged", record }, { upsert: true }))).toEqual({
    status: 200,
    headers: { etag },
    body: `{"data":{"id":7,"created":false,"updated":false,"dry_run":false,"changes":{},"record":${json}}}`,
  });
  expect(sent(recordAnswer({ kind: "update_previewed", record, changes })).headers).toBeUndefined();
});

test("a delete and a restore say what goes and comes with the record", () => {
  const refs = [{ resource: "equipment", id: 7 }];
  const refsJson = JSON.stringify(refs);
  expect(
    sent(recordAnswer({ kind: "delete_previewed", id: 7, wouldDelete: refs, wouldKeep: [] })),
  ).toEqual({
    status: 200,
    headers: undefined,
    body:
      '{"data":{"id":7,"deleted":false,"dry_run":true,"mode":"soft",' +
      `"would_delete":${refsJson},"would_keep":[]}}`,
  });
  expect(sent(recordAnswer({ kind: "restored", record, wouldRestore: refs }))).toEqual({
    status: 200,
    headers: { etag },
    body: `{"data":{"id":7,"restored":true,"dry_run":false,"would_restore":${refsJson},"record":${json}}}`,
  });
});

// Write bodies: JSON up to 1 MiB, refused as soon as they pass it, without buffering the rest.
import { expect, test } from "bun:test";
import { MAX_BODY_BYTES, readJsonBody } from "./body.ts";
import { ApiError } from "./problem.ts";

const post = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
  new Request("http://x/v1/projects", { method: "POST", body, headers });

async function refusal(request: Request): Promise<string> {
  const error = await readJsonBody(request).then(() => undefined, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ApiError);
  return `${(error as ApiError).status} ${(error as ApiError).code}`;
}

test("JSON is parsed; an empty body is undefined", async () => {
  expect(await readJsonBody(post('{"name":"a"}'))).toEqual({ name: "a" });
  expect(await readJsonBody(post(null))).toBeUndefined();
});

test("not JSON, another media type or bytes that are not UTF-8 are refused", async () => {
  expect(await refusal(post("{name"))).toBe("400 malformed_json");
  expect(await refusal(post("a=b", { "content-type": "application/x-www-form-urlencoded" }))).toBe("415 unsupported_media_type");
  expect(await refusal(post('{"a":1}', {}))).toBe("415 unsupported_media_type");
  expect(await refusal(post(new Uint8Array([0x22, 0xff, 0x22])))).toBe("400 malformed_json");
});

test("a streamed body stops being read once it passes 1 MiB", async () => {
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += 64 * 1024;
      controller.enqueue(new Uint8Array(64 * 1024));
    },
  });
  expect(await refusal(post(endless))).toBe("413 payload_too_large");
  expect(pulled).toBeLessThan(MAX_BODY_BYTES + 256 * 1024);
});

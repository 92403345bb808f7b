// The attachments store in a directory of this machine (the default, `.data/attachments`): an
// upload is written to a temporary file under `tmp/` and renamed into `objects/` once whole and
// checked, so a file under `objects/` is never a partial one, and a broken upload removes its
// temporary file.
import { randomUUID } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { AttachmentStore, ByteRange, Upload } from "./store.ts";

export class DirectoryStore implements AttachmentStore {
  readonly local = true;
  readonly location: string;

  constructor(readonly root: string) {
    this.location = path.resolve(root);
  }

  /** Where an object's file is. */
  pathOf(key: string): string {
    return path.join(this.location, "objects", ...key.split("/"));
  }

  /** Where uploads in progress are written. */
  get temporary(): string {
    return path.join(this.location, "tmp");
  }

  begin(key: string): Upload {
    const temporary = path.join(this.temporary, `${randomUUID()}.part`);
    const target = this.pathOf(key);
    const opened = mkdir(this.temporary, { recursive: true }).then(() => open(temporary, "wx"));
    // A failure to open is met by the first write (or finish); abort must not meet it unhandled.
    opened.catch(() => {});
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await (await opened).close();
    };
    return {
      async write(chunk) {
        const handle = await opened;
        let offset = 0;
        while (offset < chunk.byteLength) {
          const { bytesWritten } = await handle.write(chunk, offset);
          offset += bytesWritten;
        }
      },
      async finish() {
        await (await opened).datasync();
        await close();
        await mkdir(path.dirname(target), { recursive: true });
        await rename(temporary, target);
      },
      async abort() {
        await close().catch(() => {});
        await rm(temporary, { force: true }).catch(() => {});
      },
    };
  }

  read(key: string, range?: ByteRange): Blob {
    const file = Bun.file(this.pathOf(key));
    return range ? file.slice(range.start, range.end + 1) : file;
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}

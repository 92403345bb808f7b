// The attachments store in a directory of this machine (the default, `.data/attachments`): an
// upload is written to a temporary file under `tmp/` and renamed into `objects/` once whole and
// checked, so a file under `objects/` is never a partial one, and a broken upload removes its
// temporary file (one a crash left is named for its key, which the sweep removes: loose-objects.ts).
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { AttachmentStore, ByteRange, Upload } from "./store.ts";

/** What the file writer gathers before it writes. */
const WRITE_BUFFER_BYTES = 256 * 1024;

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

  /** The temporary file of the upload of `key`: named for it, so a sweep of the key finds it. */
  temporaryOf(key: string): string {
    return path.join(this.temporary, `${key.replaceAll("/", "-")}.part`);
  }

  begin(key: string): Upload {
    const temporary = this.temporaryOf(key);
    const target = this.pathOf(key);
    // Bun's file writer, not node:fs's promise writes: it writes each chunk as it is handed over, so
    // the request body is read a socket's worth at a time. Awaiting a write on the thread pool let
    // Bun gather the body meanwhile into 1.5 MB chunks, and a 100 MiB upload's RSS rose by some
    // 45 MiB (bench/README.md, "Attachments").
    const opened = mkdir(this.temporary, { recursive: true }).then(() =>
      Bun.file(temporary).writer({ highWaterMark: WRITE_BUFFER_BYTES }),
    );
    // A failure to open is met by the first write (or finish); abort must not meet it unhandled.
    opened.catch(() => {});
    let ended = false;
    const end = async () => {
      if (ended) return;
      ended = true;
      await (await opened).end();
    };
    return {
      async write(chunk) {
        const written = (await opened).write(chunk);
        if (written instanceof Promise) await written;
      },
      async finish() {
        await end();
        // The bytes on disk before the name says the object is whole.
        const handle = await open(temporary, "r+");
        try {
          await handle.datasync();
        } finally {
          await handle.close();
        }
        await mkdir(path.dirname(target), { recursive: true });
        await rename(temporary, target);
      },
      async abort() {
        await end().catch(() => {});
        await rm(temporary, { force: true }).catch(() => {});
      },
    };
  }

  read(key: string, range?: ByteRange): Blob {
    const file = Bun.file(this.pathOf(key));
    return range ? file.slice(range.start, range.end + 1) : file;
  }

  /** Removes the object, and the temporary file of an upload of it that a crash broke off. */
  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
    await rm(this.temporaryOf(key), { force: true });
  }
}

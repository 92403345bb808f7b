// DELETE /v1/attachments/{id}: the row goes in a write like any other (Idempotency-Key, dry-run),
// and once that committed, the bytes leave the store. The key is written down as loose with the
// row's delete, so a crash before the bytes leave leaves them to the sweep (attachments/loose-objects.ts).
import { discard, markStatement } from "../attachments/loose-objects.ts";
import type { Company } from "../auth/company.ts";
import type { TokenInfo } from "../auth/tokens.ts";
import type { AttachmentRow } from "../attachments/rows.ts";
import type { RequestContext } from "../http/request-context.ts";
import { WritePlan } from "../writes/plan.ts";
import type { AttachmentDeps } from "./attachment-deps.ts";
import { runWrite } from "./route-context.ts";

export interface DeleteCall {
  company: Company;
  token: TokenInfo;
  request: Request;
  ctx: RequestContext;
  params: Record<string, string>;
  set: { status?: number | string; headers: Record<string, unknown> };
}

export async function attachmentDelete(
  deps: AttachmentDeps,
  call: DeleteCall,
  find: (
    params: Record<string, string>,
  ) => Promise<AttachmentRow & { company_id: number; def: unknown }>,
): Promise<unknown> {
  const { ctx } = call;
  let removed: string | undefined;
  const body = await runWrite(
    deps,
    call,
    async () => {
      const found = await find(call.params);
      if (ctx.dryRun) return { outcome: found.id };
      const plan = new WritePlan();
      plan.statements.push({
        text: "DELETE FROM attachments WHERE company_id = ? AND id = ?",
        values: [found.company_id, found.id],
      });
      // Written down with the row's delete: a crash before the object is removed leaves it to the sweep.
      plan.statements.push(markStatement(found.object_key));
      removed = found.object_key;
      // The event tells the metadata only: never the bytes, the store's key or a link.
      const { object_key: _key, company_id: _company, def: _def, ...metadata } = found;
      plan.changes.push({ resource: "attachments", action: "deleted", record: metadata as never });
      return { outcome: found.id, plan };
    },
    (id: number) => ({
      status: 200,
      body: { data: { id, deleted: !ctx.dryRun, dry_run: ctx.dryRun } },
    }),
    { takesBody: false },
  );
  if (removed !== undefined) await discard(deps.db, deps.attachments, removed);
  return body;
}

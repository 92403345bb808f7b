// Events as a token sees them (docs/tokens.md, sensitive fields): each record and its changes
// without the fields the token may not see. The feed, record histories and webhook deliveries show
// events through this.
import type { Executor } from "../db/client.ts";
import { definitionNamed, isResourceNamed } from "../resources/registry.ts";
import type { Shown } from "../resources/shown.ts";
import type { ReadView } from "../resources/visibility.ts";
import type { Event } from "./event-schema.ts";

/** `events` of the company `companyId` as a token with `view` sees them. */
export async function shownEvents(
  events: readonly Event[],
  view: ReadView,
  companyId: number,
  db: Executor,
): Promise<Event[]> {
  const byResource = new Map<string, Shown>();
  // Events of the company's configuration (custom field definitions) hold no record fields.
  for (const resource of new Set(events.map((event) => event.resource)))
    if (isResourceNamed(resource))
      byResource.set(resource, await view.of(definitionNamed(resource), companyId, db));
  return events.map((event) => {
    const shown = byResource.get(event.resource);
    return shown?.hides ? { ...event, data: shown.data(event.data) } : event;
  });
}

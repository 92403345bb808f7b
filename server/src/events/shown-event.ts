// An event as a token sees it (docs/tokens.md, sensitive fields): its record and changes without
// the fields the token may not see. The feed, record histories and webhook deliveries show events
// through this.
import { definitionNamed } from "../resources/registry.ts";
import type { ReadView } from "../resources/visibility.ts";
import type { Event } from "./event-schema.ts";

/** `event` of the company `companyId` as a token with `view` sees it. */
export function shownEvent(event: Event, view: ReadView, companyId: number): Event {
  const shown = view.of(definitionNamed(event.resource), companyId);
  return shown.hides ? { ...event, data: shown.data(event.data) } : event;
}

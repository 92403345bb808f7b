// The names events carry, derived from the resources that have them: event types (project.created),
// the resources (projects) and the patterns a webhook subscription or a feed filter may name
// (project.*, *). The OpenAPI document lists them as enums, so generated clients type them as unions.
import type { ChangeAction } from "./changes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { LOOKUPS, RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { eventType, OTHER_EVENT_SOURCES } from "./event-log.ts";

const ACTIONS: readonly ChangeAction[] = ["created", "updated", "deleted", "restored"];

/** Resources whose records have events: every collection a client writes, the lookups included. */
export const EVENTFUL = [...RESOURCES, ...SUB_RESOURCES, ...LOOKUPS];

/** What has events besides the resources (attachments: created and deleted, never updated). */
const OTHERS = Object.keys(OTHER_EVENT_SOURCES);
const OTHER_ACTIONS: readonly ChangeAction[] = ["created", "deleted"];

/** `projects`, `workers`, …, `rentals`, `trades`, `attachments`: an event's `resource`. */
export const EVENT_RESOURCES: readonly string[] = [...EVENTFUL.map((def) => def.name), ...OTHERS];

/** `project.created`, …, `rental.deleted`, `attachment.created`: an event's `type`. */
export const EVENT_TYPES: readonly string[] = [
  ...EVENTFUL.flatMap((def) => ACTIONS.map((action) => eventType(def.name, action))),
  ...OTHERS.flatMap((name) => OTHER_ACTIONS.map((action) => eventType(name, action))),
];

/** `project`, …, `rental`, then `attachment`: the first half of an event type. */
export const EVENT_NOUNS: readonly string[] = EVENT_RESOURCES.map(
  (name) => eventType(name, "created").split(".")[0]!,
);

/** Every action on one resource: `project.*`. */
export const RESOURCE_WILDCARDS: readonly string[] = EVENT_NOUNS.map((noun) => `${noun}.*`);

/** What a webhook subscription may name: an event type, every action on one resource, or `*`. */
export const SUBSCRIPTIONS: readonly string[] = [...EVENT_TYPES, ...RESOURCE_WILDCARDS, "*"];

/**
 * The resource an event type or a pattern names (`project.created`, `project.*`); none for `*` or
 * for what is no resource (`attachment.*`: resources/visibility.ts says who reads those).
 */
export function resourceOfType(type: string): ResourceDefinition | undefined {
  const index = EVENT_NOUNS.indexOf(type.split(".")[0]!);
  return index < 0 ? undefined : EVENTFUL[index];
}

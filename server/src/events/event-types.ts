// The names events carry, derived from the resources that have them: event types (project.created),
// the resources (projects) and the patterns a webhook subscription or a feed filter may name
// (project.*, *). The OpenAPI document lists them as enums, so generated clients type them as unions.
import type { ChangeAction } from "./changes.ts";
import type { ResourceDefinition } from "../resources/definition.ts";
import { LOOKUPS, RESOURCES, SUB_RESOURCES } from "../resources/registry.ts";
import { eventType } from "./event-log.ts";

const ACTIONS: readonly ChangeAction[] = ["created", "updated", "deleted", "restored"];

/** Resources whose records have events: every collection a client writes, the lookups included. */
export const EVENTFUL = [...RESOURCES, ...SUB_RESOURCES, ...LOOKUPS];

/**
 * What has events besides records: a company's custom field definitions (docs/custom-fields.md),
 * seen by any token that reads anything (resources/visibility.ts, readsConfiguration).
 */
export const CONFIGURATION_EVENTS = "custom-fields";
const CONFIGURATION_TYPES = (["created", "updated", "deleted"] as const).map((action) =>
  eventType(CONFIGURATION_EVENTS, action),
);

/** `projects`, `workers`, …, `rentals`, `trades`, `custom-fields`: an event's `resource`. */
export const EVENT_RESOURCES: readonly string[] = [
  ...EVENTFUL.map((def) => def.name),
  CONFIGURATION_EVENTS,
];

/** `project.created`, …, `rental.deleted`, `custom_field.created`: an event's `type`. */
export const EVENT_TYPES: readonly string[] = [
  ...EVENTFUL.flatMap((def) => ACTIONS.map((action) => eventType(def.name, action))),
  ...CONFIGURATION_TYPES,
];

/** `project`, …, `rental`: the first half of an event type of a record. */
export const EVENT_NOUNS: readonly string[] = EVENTFUL.map(
  (def) => eventType(def.name, "created").split(".")[0]!,
);

/** Every action on one resource: `project.*`. */
export const RESOURCE_WILDCARDS: readonly string[] = [
  ...EVENT_NOUNS.map((noun) => `${noun}.*`),
  "custom_field.*",
];

/** What a webhook subscription may name: an event type, every action on one resource, or `*`. */
export const SUBSCRIPTIONS: readonly string[] = [...EVENT_TYPES, ...RESOURCE_WILDCARDS, "*"];

/** The resource an event type or a pattern names (`project.created`, `project.*`); none for `*`. */
export function resourceOfType(type: string): ResourceDefinition | undefined {
  const index = EVENT_NOUNS.indexOf(type.split(".")[0]!);
  return index < 0 ? undefined : EVENTFUL[index];
}

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

/**
 * What has events besides records, and its actions: a company's custom field definitions
 * (docs/custom-fields.md), seen by any token that reads anything (resources/visibility.ts,
 * readsConfiguration); a record's attachments, created and deleted, never updated.
 */
export const CONFIGURATION_EVENTS = "custom-fields";
type OtherSource = keyof typeof OTHER_EVENT_SOURCES;
const OTHER_ACTIONS: Record<OtherSource, readonly ChangeAction[]> = {
  "custom-fields": ["created", "updated", "deleted"],
  attachments: ["created", "deleted"],
};
export const OTHER_SOURCES = Object.keys(OTHER_EVENT_SOURCES) as OtherSource[];

/** `projects`, `workers`, …, `rentals`, `trades`, `custom-fields`, `attachments`: an event's `resource`. */
export const EVENT_RESOURCES: readonly string[] = [
  ...EVENTFUL.map((def) => def.name),
  ...OTHER_SOURCES,
];

/** `project.created`, …, `rental.deleted`, `custom_field.created`, `attachment.created`: an event's `type`. */
export const EVENT_TYPES: readonly string[] = [
  ...EVENTFUL.flatMap((def) => ACTIONS.map((action) => eventType(def.name, action))),
  ...OTHER_SOURCES.flatMap((name) => OTHER_ACTIONS[name].map((action) => eventType(name, action))),
];

/** `project`, …, `rental`, then `custom_field`, `attachment`: the first half of an event type. */
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
/** What is no resource an event type or a pattern names (`attachment.*`, `custom_field.created`). */
export function otherSourceOfType(type: string): OtherSource | undefined {
  const noun = type.split(".")[0];
  return OTHER_SOURCES.find((name) => OTHER_EVENT_SOURCES[name] === noun);
}

export function resourceOfType(type: string): ResourceDefinition | undefined {
  const index = EVENT_NOUNS.indexOf(type.split(".")[0]!);
  return index < 0 ? undefined : EVENTFUL[index];
}

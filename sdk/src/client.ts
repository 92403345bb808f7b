// ErpClient: the entry point, one typed property per collection (from the generated COLLECTIONS
// table) over one shared transport.
import { ApiPromise } from "./core/api-promise.ts";
import type { RequestOptions } from "./core/request-options.ts";
import { type FetchLike, Transport } from "./core/transport.ts";
import {
  type CollectionClients,
  type CollectionSpec,
  COLLECTIONS,
} from "./generated/collections.ts";
import type { Usage } from "./generated/types.ts";
import { EventsClient } from "./resources/events-client.ts";
import { WebhookEndpointsClient } from "./resources/webhook-endpoints-client.ts";
import { ResourceClient } from "./resources/resource-client.ts";
import { TokensClient } from "./resources/tokens-client.ts";
import { CustomFieldsClient } from "./resources/custom-fields-client.ts";
import { AttachmentsClient, RecordAttachments } from "./resources/attachments-client.ts";

/** How to reach the API and how hard to try. */
export interface ClientOptions {
  /** e.g. `https://erp.example.com` (without `/v1`). */
  baseUrl: string;
  /** An API token, sent as `Authorization: Bearer …`. */
  token: string;
  /** Retries after the first attempt on network errors, 408, 409 idempotency_in_progress, 429 and 5xx. Default 2. */
  maxRetries?: number;
  /** Per attempt, including reading the body. Default 30000. */
  timeoutMs?: number;
  /** Replaces the global fetch: for proxies, logging or tests. */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** How many get() responses to remember for ETag revalidation; 0 turns it off. Default 500. */
  etagCacheSize?: number;
}

// The collection properties (projects, workers, …, equipment.rentals(id), trades) are declared by
// the generated CollectionClients and set in the constructor from COLLECTIONS.
// Every record collection (not the lookups) also has `attachments(id)`: the files of one record.
type WithAttachments<C> = {
  [K in keyof C]: K extends keyof typeof COLLECTIONS
    ? (typeof COLLECTIONS)[K]["kind"] extends "records"
      ? C[K] & { attachments(id: number): RecordAttachments }
      : C[K]
    : C[K];
};

// deno-lint-ignore no-empty-interface
export interface ErpClient extends WithAttachments<CollectionClients> {}

/** The typed client of the Construction ERP API. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor sets every property
export class ErpClient {
  readonly #transport: Transport;
  /** The change feed: `list({ after })` and `follow()`. */
  readonly events: EventsClient;
  /** Webhook endpoints: `test(id)`, `replay(id, { after })`, `rotateSecret(id, { expiresIn })`. */
  readonly webhookEndpoints: WebhookEndpointsClient;
  /** The company's API tokens: `list()`, `create({name, scopes, expires_in_days})`, `revoke(id)`. */
  readonly tokens: TokensClient;
  /** The company's own fields: `list({resource})`, `create`, `update`, `delete`. */
  readonly customFields: CustomFieldsClient;
  /** One attachment by its id: `get`, `download` (a stream), `link`, `delete`. */
  readonly attachments: AttachmentsClient;

  constructor(options: ClientOptions) {
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      token: options.token,
      fetch: options.fetch ?? ((url, init) => fetch(url, init)),
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      headers: options.headers ?? {},
      etagCacheSize: options.etagCacheSize ?? 500,
    });
    this.events = new EventsClient(this.#transport);
    this.webhookEndpoints = new WebhookEndpointsClient(this.#transport);
    this.tokens = new TokensClient(this.#transport);
    this.customFields = new CustomFieldsClient(this.#transport);
    this.attachments = new AttachmentsClient(this.#transport);
    for (const [property, spec] of Object.entries(COLLECTIONS)) {
      Object.defineProperty(this, property, {
        value: collectionClient(this.#transport, spec),
        enumerable: true,
      });
    }
  }

  /** This month's metered requests and the plan's quotas. */
  usage(options?: RequestOptions): ApiPromise<Usage> {
    return new ApiPromise(
      this.#transport.request<Usage>({ method: "GET", path: "/v1/usage", options }),
    );
  }
}

/** A collection's client, with one method per sub-collection: `equipment.rentals(id)`. */
function collectionClient(
  transport: Transport,
  spec: CollectionSpec,
): ResourceClient<unknown, unknown, unknown, unknown> {
  const client = new ResourceClient(transport, spec.path, {
    unique: spec.import.unique,
    update: spec.fields.update,
  });
  // A record's files (the lookups have none).
  if (spec.kind === "records")
    Object.defineProperty(client, "attachments", {
      value: (id: number) =>
        new RecordAttachments(transport, `${spec.path}/${encodeURIComponent(id)}`),
      enumerable: true,
    });
  for (const [method, segment] of Object.entries(spec.children)) {
    Object.defineProperty(client, method, {
      value: (id: number) =>
        new ResourceClient(transport, `${spec.path}/${encodeURIComponent(id)}/${segment}`),
      enumerable: true,
    });
  }
  return client;
}

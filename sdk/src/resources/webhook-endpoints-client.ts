// Webhook endpoints: the ones a company has, and what a developer does with one beyond editing it:
// a test ping, a replay of past events, a secret rotation with an overlap.
import { ApiPromise } from "../core/api-promise.ts";
import type { RequestOptions, WriteOptions } from "../core/request-options.ts";
import type { Transport } from "../core/transport.ts";
import type {
  WebhookDryRun,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointDeleted,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  WebhookReplayResult,
  WebhookSecret,
  WebhookTestResult,
} from "../generated/types.ts";

/** Where a replay starts: after an event (an id or a `next_cursor`), or at a moment. */
export type ReplayFrom = { after: string } | { since: string };

const PATH = "/v1/webhook-endpoints";

export class WebhookEndpointsClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  #call<T>(request: Parameters<Transport["request"]>[0]): ApiPromise<T> {
    return new ApiPromise(this.#transport.request<T>(request));
  }

  /** Every endpoint of the company, oldest first (never with its secret). */
  list(options?: RequestOptions): ApiPromise<WebhookEndpoint[]> {
    return this.#call({ method: "GET", path: PATH, options });
  }

  get(id: number, options?: RequestOptions): ApiPromise<WebhookEndpoint> {
    return this.#call({ method: "GET", path: `${PATH}/${id}`, options });
  }

  /** The answer carries the signing secret, this once. */
  create(
    input: WebhookEndpointCreate,
    options?: WriteOptions,
  ): ApiPromise<WebhookEndpointWithSecret | WebhookDryRun> {
    return this.#call({ method: "POST", path: PATH, body: input, options });
  }

  update(
    id: number,
    input: WebhookEndpointUpdate,
    options?: WriteOptions,
  ): ApiPromise<WebhookEndpoint | WebhookDryRun> {
    return this.#call({ method: "PATCH", path: `${PATH}/${id}`, body: input, options });
  }

  delete(id: number, options?: WriteOptions): ApiPromise<WebhookEndpointDeleted | WebhookDryRun> {
    return this.#call({ method: "DELETE", path: `${PATH}/${id}`, options });
  }

  /** Sends a signed `ping` now and answers the attempt (it is in the deliveries log, not the feed). */
  test(id: number, options?: RequestOptions): ApiPromise<WebhookTestResult> {
    return this.#call({ method: "POST", path: `${PATH}/${id}/test`, options });
  }

  /** Queues every subscribed event after `after` (or from `since`) again, once each, in feed order. */
  replay(id: number, from: ReplayFrom, options?: WriteOptions): ApiPromise<WebhookReplayResult> {
    return this.#call({ method: "POST", path: `${PATH}/${id}/replay`, body: from, options });
  }

  /**
   * A new secret, shown once; with `expiresIn` (seconds, at most 7 days) the old one signs every
   * delivery beside it until then. Verify with both: `verifyWebhook(body, header, [next, old])`.
   */
  rotateSecret(
    id: number,
    rotation: { expiresIn?: number } = {},
    options?: WriteOptions,
  ): ApiPromise<WebhookSecret | WebhookDryRun> {
    return this.#call({
      method: "POST",
      path: `${PATH}/${id}/rotate-secret`,
      body: rotation.expiresIn === undefined ? {} : { expires_in: rotation.expiresIn },
      options,
    });
  }
}

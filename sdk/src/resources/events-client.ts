// The change feed: list() pages by cursor through every event after one; follow() keeps polling
// for new ones, as an async iterator, until its signal aborts.
import { ApiPromise } from "../core/api-promise.ts";
import type { RequestOptions } from "../core/request-options.ts";
import type { Transport } from "../core/transport.ts";
import type { Event } from "../generated/types.ts";

/** Which events: after a cursor (an event id or a page's next_cursor), of a type or a resource. */
export interface EventQuery {
  after?: string;
  limit?: number;
  /** `project.created`, or `project.*`. */
  type?: string;
  /** `projects`, `workers`, … */
  resource?: string;
}

/** One page of the feed. */
export interface EventPage {
  data: Event[];
  meta: { next_cursor: string | null; limit: number };
}

export interface FollowOptions extends EventQuery {
  /** Wait between polls when the feed is drained; default 1000 ms. */
  intervalMs?: number;
  /** Stops following. */
  signal?: AbortSignal;
}

export class EventsClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** One page of events after `after`, oldest first. */
  listPage(query: EventQuery = {}, options?: RequestOptions): ApiPromise<EventPage> {
    return new ApiPromise(this.#transport.request<EventPage>({ method: "GET", path: "/v1/events", query: { ...query }, options, envelope: "page" }));
  }

  /** Every event after `after` that exists now, page after page. */
  async *list(query: EventQuery = {}, options?: RequestOptions): AsyncGenerator<Event, void, undefined> {
    let after = query.after;
    for (;;) {
      const page = await this.listPage({ ...query, after }, options);
      yield* page.data;
      if (page.data.length === 0 || page.meta.next_cursor === null) return;
      after = page.meta.next_cursor;
    }
  }

  /** Every event after `after`, now and as they are committed, until `signal` aborts. */
  async *follow(options: FollowOptions = {}): AsyncGenerator<Event, void, undefined> {
    const { intervalMs = 1000, signal, ...query } = options;
    let after = query.after;
    while (!signal?.aborted) {
      const page = await this.listPage({ ...query, after }, { signal });
      yield* page.data;
      after = page.meta.next_cursor ?? after;
      if (page.data.length === 0) await sleep(intervalMs, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

// The change feed: list() pages by cursor through every event after one; follow() long-polls for
// new ones, as an async iterator, until its signal aborts.
import { ApiPromise } from "../core/api-promise.ts";
import { ApiUserAbortError } from "../core/errors.ts";
import type { RequestOptions } from "../core/request-options.ts";
import type { Transport } from "../core/transport.ts";
import type { Event } from "../generated/types.ts";

/** Which events: after a cursor (an event id or a page's next_cursor), of a type or a resource. */
export interface EventQuery {
  /** An event id or a page's `next_cursor`; `"latest"` answers no events and the cursor of the newest one. */
  after?: string;
  limit?: number;
  /** `project.created`, or `project.*`. */
  type?: string;
  /** `projects`, `workers`, … */
  resource?: string;
  /** Long-poll: when nothing follows the cursor yet, the server waits up to this many seconds (1–30) for an event. */
  wait?: number;
}

/** One page of the feed. */
export interface EventPage {
  data: Event[];
  meta: { next_cursor: string | null; limit: number };
}

export interface FollowOptions extends Omit<EventQuery, "wait"> {
  /**
   * Where to start when `after` is not given: `"latest"` (default) yields only events committed
   * from now on; `"beginning"` first yields every event the feed still keeps.
   */
  from?: "latest" | "beginning";
  /** Seconds each long-poll waits for a new event (1–30, default 30). */
  waitSeconds?: number;
  /** Stops following: the iteration ends, without an error. */
  signal?: AbortSignal;
}

/** How long a long-poll's answer may take beyond its wait: the server's reading and answering. */
const ANSWER_MS = 15_000;

export class EventsClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** One page of events after `after`, oldest first. */
  listPage(query: EventQuery = {}, options?: RequestOptions): ApiPromise<EventPage> {
    return new ApiPromise(
      this.#transport.request<EventPage>({
        method: "GET",
        path: "/v1/events",
        query: { ...query },
        options,
        envelope: "page",
      }),
    );
  }

  /** Every event after `after` that exists now, page after page. */
  async *list(
    query: EventQuery = {},
    options?: RequestOptions,
  ): AsyncGenerator<Event, void, undefined> {
    let after = query.after;
    for (;;) {
      const page = await this.listPage({ ...query, after }, options);
      yield* page.data;
      if (page.data.length === 0 || page.meta.next_cursor === null) return;
      after = page.meta.next_cursor;
    }
  }

  /**
   * Every event after the start (`after`, else `from`), now and as they are committed, until
   * `signal` aborts. Long-polls: each request waits on the server until an event commits, so a
   * new event arrives within a second and an idle feed costs one request per `waitSeconds`.
   */
  async *follow(options: FollowOptions = {}): AsyncGenerator<Event, void, undefined> {
    const { from = "latest", waitSeconds = 30, signal, ...query } = options;
    let after = query.after ?? (from === "latest" ? "latest" : undefined);
    const request = { signal, timeoutMs: waitSeconds * 1000 + ANSWER_MS };
    try {
      while (!signal?.aborted) {
        const page = await this.listPage(
          { limit: 100, ...query, after, wait: waitSeconds },
          request,
        );
        yield* page.data;
        after = page.meta.next_cursor ?? after;
      }
    } catch (error) {
      if (error instanceof ApiUserAbortError && signal?.aborted) return;
      throw error;
    }
  }
}

// ErpClient: the entry point, one typed property per resource over one shared transport.
import { ApiPromise } from "./core/api-promise.ts";
import type { RequestOptions } from "./core/request-options.ts";
import { type FetchLike, Transport } from "./core/transport.ts";
import type {
  Client,
  ClientCreate,
  ClientFilters,
  ClientUpdate,
  EquipmentCategory,
  Estimate,
  EstimateCreate,
  EstimateFilters,
  EstimateUpdate,
  Project,
  ProjectCreate,
  ProjectFilters,
  ProjectUpdate,
  Subcontractor,
  SubcontractorCreate,
  SubcontractorFilters,
  SubcontractorUpdate,
  Trade,
  Usage,
  Worker,
  WorkerCreate,
  WorkerFilters,
  WorkerUpdate,
} from "./generated/types.ts";
import { EquipmentClient } from "./resources/equipment-client.ts";
import type { LookupClient } from "./resources/lookup-client.ts";
import { ResourceClient } from "./resources/resource-client.ts";

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

/** The typed client of the Construction ERP API. */
export class ErpClient {
  readonly projects: ResourceClient<Project, ProjectCreate, ProjectUpdate, ProjectFilters>;
  readonly workers: ResourceClient<Worker, WorkerCreate, WorkerUpdate, WorkerFilters>;
  readonly clients: ResourceClient<Client, ClientCreate, ClientUpdate, ClientFilters>;
  readonly estimates: ResourceClient<Estimate, EstimateCreate, EstimateUpdate, EstimateFilters>;
  readonly subcontractors: ResourceClient<Subcontractor, SubcontractorCreate, SubcontractorUpdate, SubcontractorFilters>;
  readonly equipment: EquipmentClient;
  readonly trades: LookupClient<Trade>;
  readonly equipmentCategories: LookupClient<EquipmentCategory>;
  readonly #transport: Transport;

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
    const t = this.#transport;
    this.projects = new ResourceClient(t, "/v1/projects");
    this.workers = new ResourceClient(t, "/v1/workers");
    this.clients = new ResourceClient(t, "/v1/clients");
    this.estimates = new ResourceClient(t, "/v1/estimates");
    this.subcontractors = new ResourceClient(t, "/v1/subcontractors");
    this.equipment = new EquipmentClient(t);
    this.trades = new ResourceClient(t, "/v1/trades");
    this.equipmentCategories = new ResourceClient(t, "/v1/equipment-categories");
  }

  /** This month's metered requests and the plan's quotas. */
  usage(options?: RequestOptions): ApiPromise<Usage> {
    return new ApiPromise(this.#transport.request<Usage>({ method: "GET", path: "/v1/usage", options }));
  }
}

// A company's custom fields (docs/custom-fields.md): the definitions of its own typed fields on its
// records. Values are read and written on the records themselves, under `custom_fields`.
import { ApiPromise } from "../core/api-promise.ts";
import type { RequestOptions, WriteOptions } from "../core/request-options.ts";
import type { Transport } from "../core/transport.ts";
import type {
  CustomField,
  CustomFieldCreate,
  CustomFieldCreated,
  CustomFieldDeleted,
  CustomFieldResource,
  CustomFieldUpdate,
  CustomFieldUpdated,
} from "../generated/types.ts";

const PATH = "/v1/custom-fields";

export class CustomFieldsClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  #call<T>(request: Parameters<Transport["request"]>[0]): ApiPromise<T> {
    return new ApiPromise(this.#transport.request<T>(request));
  }

  /** The company's fields, oldest first; `resource` narrows to one resource's. */
  list(
    query: { resource?: CustomFieldResource } = {},
    options?: RequestOptions,
  ): ApiPromise<CustomField[]> {
    return this.#call({ method: "GET", path: PATH, query, options });
  }

  get(id: number, options?: RequestOptions): ApiPromise<CustomField> {
    return this.#call({ method: "GET", path: `${PATH}/${id}`, options });
  }

  /** 402 quota_exceeded past the plan's fields per resource; 409 unique_violation for a key or label in use. */
  create(input: CustomFieldCreate, options?: WriteOptions): ApiPromise<CustomFieldCreated> {
    return this.#call({ method: "POST", path: PATH, body: input, options });
  }

  /** 409 custom_field_conflict when the stored values would break the change (a dry-run says the same). */
  update(
    id: number,
    input: CustomFieldUpdate,
    options?: WriteOptions,
  ): ApiPromise<CustomFieldUpdated> {
    return this.#call({ method: "PATCH", path: `${PATH}/${id}`, body: input, options });
  }

  /** Deletes the field and clears its values (`values_cleared`). */
  delete(id: number, options?: WriteOptions): ApiPromise<CustomFieldDeleted> {
    return this.#call({ method: "DELETE", path: `${PATH}/${id}`, options });
  }
}

// The company's own fields (docs/cli.md, "Custom fields"): list them (of one resource or all), read
// one, define one, change its label and rules, delete it (which clears its values on every record).
import { ApiPromise } from "../core/api-promise.ts";
import type {
  ConditionalWriteOptions,
  RequestOptions,
  WriteOptions,
} from "../core/request-options.ts";
import type { Transport } from "../core/transport.ts";

/** The types a custom field may have. */
export type CustomFieldType =
  | "text"
  | "integer"
  | "decimal"
  | "money"
  | "date"
  | "boolean"
  | "select";

/** A custom field's definition. */
export interface CustomField {
  id: number;
  resource: string;
  key: string;
  label: string;
  type: CustomFieldType;
  required: boolean;
  unique: boolean;
  sensitive: boolean;
  options: { max_length?: number; choices?: string[] };
  description: string | null;
  created_at: string;
  updated_at: string;
}

/** What a create takes: the resource, the key (never changes), the label and the type. */
export type CustomFieldCreate = Pick<CustomField, "resource" | "key" | "label" | "type"> &
  Partial<Pick<CustomField, "required" | "unique" | "sensitive" | "options" | "description">>;

/** What an update may change (the key and the type stay). */
export type CustomFieldUpdate = Partial<
  Pick<CustomField, "label" | "required" | "unique" | "sensitive" | "options" | "description">
>;

/** The answer to a write: the id, whether it was a dry-run, and the definition after it. */
export interface CustomFieldWritten {
  id: number | null;
  dry_run: boolean;
  created?: boolean;
  updated?: boolean;
  deleted?: boolean;
  changes?: Record<string, { from: unknown; to: unknown }>;
  /** A delete: the values it cleared (or would). */
  values_cleared?: number;
  record?: CustomField | null;
}

const PATH = "/v1/custom-fields";

export class CustomFieldsClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The company's fields, oldest first; `resource` narrows to one resource's. */
  list(query: { resource?: string } = {}, options?: RequestOptions): ApiPromise<CustomField[]> {
    return new ApiPromise(
      this.#transport.request<CustomField[]>({ method: "GET", path: PATH, query, options }),
    );
  }

  get(id: number, options?: RequestOptions): ApiPromise<CustomField> {
    return new ApiPromise(
      this.#transport.request<CustomField>({ method: "GET", path: this.#item(id), options }),
    );
  }

  create(input: CustomFieldCreate, options?: WriteOptions): ApiPromise<CustomFieldWritten> {
    return new ApiPromise(
      this.#transport.request<CustomFieldWritten>({
        method: "POST",
        path: PATH,
        body: input,
        options,
      }),
    );
  }

  /** Refused (409 custom_field_conflict) when stored values would break the new rules. */
  update(
    id: number,
    input: CustomFieldUpdate,
    options?: ConditionalWriteOptions,
  ): ApiPromise<CustomFieldWritten> {
    return new ApiPromise(
      this.#transport.request<CustomFieldWritten>({
        method: "PATCH",
        path: this.#item(id),
        body: input,
        options,
      }),
    );
  }

  /** Deletes the field and clears its values on every record (`values_cleared`). */
  delete(id: number, options?: ConditionalWriteOptions): ApiPromise<CustomFieldWritten> {
    return new ApiPromise(
      this.#transport.request<CustomFieldWritten>({
        method: "DELETE",
        path: this.#item(id),
        options,
      }),
    );
  }

  #item(id: number): string {
    return `${PATH}/${encodeURIComponent(id)}`;
  }
}

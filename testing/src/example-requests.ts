// Every operation of a served OpenAPI document sent as its own documented example: the example
// body and path values, with the ids of real records (made first, from the documented create
// examples, with unique values of their own) wherever a path names a record or a body references
// one.
import { uniqueFields } from "@erp/server/fields";
import { ALL_DEFINITIONS } from "@erp/server/registry";
import type { Api } from "./api.ts";

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"];

export interface ExampleExchange {
  operationId: string;
  method: string;
  /** The path template: /v1/projects/{id}. */
  template: string;
  /** The path sent: /v1/projects/17. */
  path: string;
  /** Whether the operation needs the bearer token. */
  secured: boolean;
  body?: unknown;
  status: number;
  headers: Headers;
  contentType: string;
  /** The parsed JSON answer, or the text of any other. */
  answer: unknown;
  text: string;
}

/** Collections: paths one POSTs to whose members have paths of their own (/v1/projects, /v1/projects/{id}). */
export function collectionsOf(document: Json): string[] {
  const paths = Object.keys(document.paths);
  return paths.filter(
    (path) => document.paths[path].post && paths.some((other) => other.startsWith(`${path}/{`)),
  );
}

/** The collection a body field references, if it is a reference: `project_id` → /v1/projects. */
export function referencedCollection(
  collections: readonly string[],
  field: string,
): string | undefined {
  if (!field.endsWith("_id")) return undefined;
  const singular = (name: string): string => name.replace(/ies$/, "y").replace(/s$/, "");
  return collections.find(
    (collection) => singular(collection.split("/").at(-1)!) === field.slice(0, -3),
  );
}

/** The example of a request body: the media type's own, else its schema's first. */
export function exampleBody(document: Json, operation: Json): unknown {
  const media = operation.requestBody?.content?.["application/json"] as Json | undefined;
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const schema = media.schema?.$ref
    ? document.components.schemas[(media.schema.$ref as string).split("/").pop()!]
    : media.schema;
  const example = schema?.examples?.[0] ?? schema?.example;
  if (example === undefined)
    throw new Error(`${operation.operationId}: its request body has no example`);
  return structuredClone(example);
}

/**
 * The unique fields of the resource a collection holds (a lookup's required, unique `name`): a
 * documented create that names one cannot be sent twice while its record lives.
 */
function uniqueFieldsOf(collection: string): readonly string[] {
  const name = collection.split("/").at(-1)!;
  // A company's custom fields are no resource: their key and label are unique per resource.
  if (name === "custom-fields") return ["key", "label"];
  const def = ALL_DEFINITIONS.find((one) => one.name === name);
  return def ? uniqueFields(def) : [];
}

/** `?name=example&…` of the operation's required query parameters (an upload's `filename`), or "". */
export function requiredQuery(operation: Json): string {
  const required = ((operation.parameters ?? []) as Json[]).filter(
    (parameter) => parameter.in === "query" && parameter.required,
  );
  const pairs = required.map((parameter) => {
    const example = parameter.example ?? parameter.schema?.examples?.[0];
    if (example === undefined)
      throw new Error(`${operation.operationId}: query parameter ${parameter.name} has no example`);
    return `${parameter.name}=${encodeURIComponent(String(example))}`;
  });
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

/**
 * The create that makes the records of a collection with no create of its own (`/v1/attachments`):
 * the first POST at `…/{id}/attachments` whose 201 answers an id.
 */
export function makerOf(document: Json, collection: string): string | undefined {
  const name = collection.split("/").at(-1)!;
  if (document.paths[collection]?.post) return undefined;
  return Object.keys(document.paths).find(
    (path) =>
      path.endsWith(`}/${name}`) &&
      document.paths[path].post?.responses?.["201"] !== undefined &&
      Object.keys(document.paths).some((other) => other.startsWith(`${collection}/{`)),
  );
}

export class ExampleRunner {
  readonly #records = new Map<string, number>();
  readonly #collections: string[];
  /** Records made to stand on so far, per collection: they number the unique values each is given. */
  readonly #made = new Map<string, number>();

  /** `maker` makes the records the examples point at (by default `api`, which sends them). */
  constructor(
    readonly document: Json,
    readonly api: Api,
    readonly maker: Api = api,
  ) {
    this.#collections = collectionsOf(document);
  }

  /**
   * Sends every operation's example, in document order; a collection is listed once it has a record,
   * a delete removes one made for it and a restore brings back one deleted for it.
   */
  async runAll(): Promise<ExampleExchange[]> {
    const exchanges: ExampleExchange[] = [];
    for (const [template, item] of Object.entries(this.document.paths as Record<string, Json>)) {
      if (this.#collections.includes(template)) await this.recordOf(template, false);
      for (const method of METHODS.filter((name) => item[name]))
        exchanges.push(await this.send(method, template, item[method]));
    }
    return exchanges;
  }

  /** Sends the operation's example, by `options.api` (else this runner's) with `options.headers`. */
  async send(
    method: string,
    template: string,
    operation: Json,
    options: { api?: Api; headers?: Record<string, string>; ownUniqueValues?: boolean } = {},
  ): Promise<ExampleExchange> {
    // A restore needs a deleted record: one made for it, then deleted.
    const restore = method === "post" && template.endsWith("/restore");
    const path = operation["x-url-from"]
      ? await this.urlFrom(operation["x-url-from"])
      : (await this.fill(template, operation, method === "delete" || restore)) +
        requiredQuery(operation);
    if (restore) await this.maker.delete(path.slice(0, -"/restore".length));
    const body = await this.#body(operation);
    // A record made to stand on takes unique values of its own, leaving the documented ones free
    // for the documented create itself.
    if (options.ownUniqueValues && typeof body === "object" && body !== null) {
      const made = (this.#made.get(template) ?? 0) + 1;
      this.#made.set(template, made);
      for (const field of uniqueFieldsOf(template))
        if (typeof (body as Json)[field] === "string")
          // `_`: a custom field's key takes no spaces.
          (body as Json)[field] =
            `${(body as Json)[field]}${template.endsWith("custom-fields") ? "_" : " "}${made}`;
    }
    const secured = !(Array.isArray(operation.security) && operation.security.length === 0);
    const response = await (options.api ?? this.api).request(method.toUpperCase(), path, {
      body,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(secured ? {} : { token: null }),
    });
    return {
      operationId: operation.operationId,
      method: method.toUpperCase(),
      template,
      path,
      secured,
      body,
      status: response.status,
      headers: response.headers,
      contentType: (response.headers.get("content-type") ?? "").split(";")[0]!.trim(),
      answer: response.body,
      text: response.text,
    };
  }

  /**
   * The path and query of the URL another operation answers (`x-url-from`: a signed link is called
   * at the URL POST /v1/attachments/{id}/link gave).
   */
  async urlFrom(operationId: string): Promise<string> {
    for (const [template, item] of Object.entries(this.document.paths as Record<string, Json>))
      for (const method of METHODS)
        if (item[method]?.operationId === operationId) {
          const made = await this.send(method, template, item[method], { api: this.maker });
          const url = new URL((made.answer as Json).data.url);
          return url.pathname + url.search;
        }
    throw new Error(`x-url-from: no operation ${operationId}`);
  }

  /** The path with the example of each parameter, or the id of a real record where it names one. */
  async fill(template: string, operation: Json, fresh: boolean): Promise<string> {
    let path = template;
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const [index, name] of names.entries()) {
      const owner = template.slice(0, template.indexOf(`/{${name}}`));
      const parameter = ((operation.parameters ?? []) as Json[]).find(
        (p) => p.in === "path" && p.name === name,
      );
      const value =
        this.#collections.includes(owner) || makerOf(this.document, owner)
          ? await this.recordOf(owner, fresh && index === names.length - 1)
          : parameter?.example;
      if (value === undefined)
        throw new Error(`${operation.operationId}: path parameter ${name} has no example`);
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    }
    return path;
  }

  /** The example body, its references (`project_id`) pointing at real records. */
  async #body(operation: Json): Promise<unknown> {
    const body = exampleBody(this.document, operation);
    if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
    for (const field of Object.keys(body)) {
      const target = referencedCollection(this.#collections, field);
      if (target) (body as Json)[field] = await this.recordOf(target, false);
    }
    return body;
  }

  /**
   * A record of the collection made with its documented create example; `fresh` for one of its own.
   * A collection made under other records' paths (`/v1/attachments`, made by POST
   * `/v1/projects/{id}/attachments`) is made with the first such create.
   */
  async recordOf(collection: string, fresh: boolean): Promise<number> {
    const known = this.#records.get(collection);
    if (known !== undefined && !fresh) return known;
    const maker = this.document.paths[collection]?.post
      ? collection
      : makerOf(this.document, collection);
    if (!maker) throw new Error(`${collection}: no documented create makes its records`);
    const created = await this.send("post", maker, this.document.paths[maker].post, {
      api: this.maker,
      ownUniqueValues: true,
    });
    if (created.status !== 201)
      throw new Error(
        `POST ${created.path} (its documented example) answered ${created.status}: ${created.text}`,
      );
    const id = (created.answer as Json).data.id as number;
    if (!fresh) this.#records.set(collection, id);
    return id;
  }
}

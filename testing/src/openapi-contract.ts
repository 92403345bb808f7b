// Checks real responses against the OpenAPI document the server serves, with ajv (JSON Schema
// 2020-12, as OpenAPI 3.1 uses) and ajv-formats: the way contract-test generators do.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { ApiResponse } from "./api.ts";

type Json = Record<string, any>;

const DOCUMENT_ID = "openapi.json";
const pointer = (...parts: string[]): string =>
  parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly templates: { template: string; pattern: RegExp }[];

  constructor(readonly document: Json) {
    // Strict: an unknown keyword or `format` in the document is an error, not silently ignored.
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    // The document's own members are not JSON Schema keywords; declare them so strict mode accepts the container.
    this.ajv.addVocabulary([
      "openapi",
      "info",
      "servers",
      "paths",
      "components",
      "tags",
      "security",
      "webhooks",
      "jsonSchemaDialect",
      "externalDocs",
      // An OpenAPI extension on the schemas of sensitive fields (docs/tokens.md).
      "x-sensitive",
    ]);
    this.ajv.addSchema(document, DOCUMENT_ID);
    // A concrete path matches a literal one (/v1/projects/batch) before a templated one
    // (/v1/projects/{id}), as OpenAPI says.
    const parameters = (template: string): number => template.split("{").length;
    this.templates = Object.keys(document.paths)
      .sort((a, b) => parameters(a) - parameters(b))
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      }));
  }

  /** The path template a concrete path is served under. */
  templateOf(path: string): string | undefined {
    const pathname = path.split("?")[0]!;
    return this.templates.find(({ pattern }) => pattern.test(pathname))?.template;
  }

  /** Problems with one response: undeclared status or media type, or a body that fails its schema. */
  check(method: string, path: string, response: ApiResponse): string[] {
    const template = this.templateOf(path);
    if (!template) return [`${path} is not in the document`];
    const operation = this.document.paths[template][method.toLowerCase()];
    if (!operation) return [`${method} ${template} is not in the document`];
    const status = String(response.status);
    const declared = operation.responses[status]
      ? status
      : operation.responses.default
        ? "default"
        : undefined;
    if (!declared) return [`${method} ${template}: status ${status} is not declared`];
    const content = operation.responses[declared].content as Json | undefined;
    if (!content)
      return response.text.length === 0
        ? []
        : [`${method} ${template} ${status}: a body where none is declared`];
    const sent = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
    // A declared media type range (`*/*`: an attachment's bytes, whatever their type) covers it.
    const mediaType =
      [sent, `${sent.split("/")[0]}/*`, "*/*"].find((range) => content[range]) ?? sent;
    if (!content[mediaType])
      return [
        `${method} ${template} ${status}: content type ${mediaType} is not declared ` +
          `(${Object.keys(content).join(", ")})`,
      ];
    const at = [
      "paths",
      template,
      method.toLowerCase(),
      "responses",
      declared,
      "content",
      mediaType,
    ];
    const ref = `${DOCUMENT_ID}#/${pointer(...at, "schema")}`;
    const validate = this.ajv.getSchema(ref) ?? this.ajv.compile({ $ref: ref });
    // A body that is not JSON (bytes, text) is checked as the text it is.
    if (validate(/json$/.test(sent) ? response.body : response.text)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${method} ${path} ${status}: ${error.instancePath || "(body)"} ${error.message} ` +
        `${JSON.stringify(error.params)}`,
    );
  }
}

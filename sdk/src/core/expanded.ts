// The record type an `expand` returns: each reference it names embedded as the record it points at
// (typed from the resource's generated `<Record>Embeds`), a deleted one as `{id, deleted: true}`.
import type { DeletedRecord } from "../generated/types.ts";

/** `expand` as a query takes it: one path (`"project.client"`) or several. */
export interface ExpandParams<E extends string> {
  /**
   * References to embed as the records they name (`client` for `client_id`; `project.client` two
   * levels); narrows the record type: `expand: ["client"]` gives records with `client: Client |
   * DeletedRecord | null`.
   */
  expand?: E | readonly E[];
}

/** An embedded reference: the record, `{id, deleted: true}` when it was deleted, null when none is named. */
export type Embedded<T> = T | DeletedRecord | null;

type Head<E extends string> = E extends `${infer H}.${string}` ? H : E;
type Rest<E extends string, H extends string> = E extends `${H}.${infer T}` ? T : never;
/** The embeds of the record under `H`: `X`'s paths that go on from `H`, without `H.`. */
type Beneath<X, H extends string> = {
  [P in keyof X as P extends `${H}.${infer T}` ? T : never]: X[P];
};

/**
 * `R` with the references the `expand` paths `E` name, per `X` (the path → record table of `R`'s
 * resource): `Expanded<Rental, RentalEmbeds, "project.client">` is a Rental whose `project` is a
 * Project whose `client` is embedded too. No paths: `R` itself.
 */
export type Expanded<R, X, E extends string> = [E] extends [never]
  ? R
  : R & {
      [H in Head<E> & keyof X]: Embedded<Expanded<X[H], Beneath<X, H>, Rest<E, H>>>;
    };

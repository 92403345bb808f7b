// The company's API tokens (docs/tokens.md): list them (never their secrets), make one with a
// name, scopes and an expiry (its secret comes back once), revoke one.
import { ApiPromise } from "../core/api-promise.ts";
import type { RequestOptions, WriteOptions } from "../core/request-options.ts";
import type { Transport } from "../core/transport.ts";
import type { Token, TokenCreate, TokenCreated } from "../generated/types.ts";

export class TokensClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Every live token of the company; `current` marks the one this client uses. */
  list(options?: RequestOptions): ApiPromise<Token[]> {
    return new ApiPromise(
      this.#transport.request<Token[]>({ method: "GET", path: "/v1/tokens", options }),
    );
  }

  /**
   * A new token; keep its `token`, shown only now. Scopes beyond this client's token's own are
   * refused (PermissionError), and so is an expiry beyond its own (ValidationError). The server
   * keeps no secret: a retry of a create whose first answer was lost answers `token: null`
   * (revoke that token and make another).
   */
  create(input: TokenCreate, options?: WriteOptions): ApiPromise<TokenCreated> {
    return new ApiPromise(
      this.#transport.request<TokenCreated>({
        method: "POST",
        path: "/v1/tokens",
        body: input,
        options,
      }),
    );
  }

  /** Revokes a token: it stops working within a second everywhere. Any token may revoke itself. */
  revoke(id: number, options?: WriteOptions): ApiPromise<{ id: number; revoked: true }> {
    return new ApiPromise(
      this.#transport.request<{ id: number; revoked: true }>({
        method: "DELETE",
        path: `/v1/tokens/${encodeURIComponent(id)}`,
        options,
      }),
    );
  }
}

// A deliberately plain HTTP client for tests: raw status, headers and parsed body.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  token?: string | null;
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  as(token: string | undefined): Api {
    return new Api(this.baseUrl, token);
  }

  async request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>("GET", path, options);
  }

  post<T = any>(
    path: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    return this.request<T>("POST", path, { ...options, body });
  }

  patch<T = any>(
    path: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    return this.request<T>("PATCH", path, { ...options, body });
  }

  delete<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>("DELETE", path, options);
  }
}

/** Creates a record and returns its id, failing loudly when the API refuses. */
export async function create(
  api: Api,
  path: string,
  body: Record<string, unknown>,
): Promise<number> {
  const response = await api.post(path, body);
  if (response.status !== 201)
    throw new Error(`POST ${path} → ${response.status} ${response.text}`);
  return response.body.data.id as number;
}

/**
 * Repeats a request until it answers `status` (then returns that answer) or `withinMs` passes
 * (then returns the last one): for what the contract lets lag, such as a revocation (5 s).
 */
export async function eventually(
  send: () => Promise<ApiResponse>,
  status: number,
  withinMs = 5_500,
): Promise<ApiResponse> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const response = await send();
    if (response.status === status || Date.now() > deadline) return response;
    await Bun.sleep(100);
  }
}

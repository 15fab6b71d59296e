import type { DevServer } from "../../src/devserver/index.js";

export interface ApiResponse {
  status: number;
  body: Record<string, unknown> & { success?: boolean; error?: string; data?: Record<string, unknown> };
  headers: Headers;
}

/** Raw HTTP against the emulator: the way any client in any language would call it. */
export function apiFor(dev: DevServer) {
  return async (method: string, path: string, body?: unknown, key: string | null = dev.projectKey, contentType = "application/json"): Promise<ApiResponse> => {
    const headers: Record<string, string> = {};
    if (key !== null) headers.SERVICE_API_KEY = key;
    if (body !== undefined) headers["content-type"] = contentType;
    const res = await fetch(dev.url + path, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as ApiResponse["body"], headers: res.headers };
  };
}

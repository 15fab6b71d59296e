import { checkApiKeyId, checkKeyUpdate, checkRotate } from "../protocol/requests.js";
import type { ApiKey, RotateApiKeyInput, UpdateApiKeyResult } from "../protocol/types.js";
import type { ClientHttp } from "./client-http.js";
import { ValidationError } from "./errors.js";

/** Organization API keys (spec 3.1, 4.1, 4.2); use an organization key with these. */
export class ApiKeysApi {
  constructor(private readonly http: ClientHttp) {}

  /**
   * Rotates a key. Without a grace period the new value is in `value` (shown only here); with
   * one, it is in `shadowValue` and both values work until `rotatesAt`.
   */
  async rotate(apiKeyId: number, input: RotateApiKeyInput = {}): Promise<ApiKey> {
    const id = this.id(apiKeyId);
    const res = await this.http.call("POST", `/v1/organization/api-keys/${id}/rotate`, input, checkRotate);
    return (res.data as { apiKey: ApiKey }).apiKey;
  }

  /** Activates (`valid: true`) or deactivates a key; takes effect at once. */
  async update(apiKeyId: number, input: { valid: boolean }): Promise<UpdateApiKeyResult> {
    const id = this.id(apiKeyId);
    const res = await this.http.call("PUT", `/v2/organization/api-keys/${id}`, input, checkKeyUpdate);
    return { ...(res.data as unknown as ApiKey), deprecated: res.deprecated === true };
  }

  private id(apiKeyId: number): number {
    try {
      return checkApiKeyId(apiKeyId);
    } catch (err) {
      throw new ValidationError((err as Error).message);
    }
  }
}

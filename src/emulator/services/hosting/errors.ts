/**
 * The hosting API's error bodies (REST under /api/v3 and the query API's
 * HTTP errors), as the published `basic-error` and `validation-error` schemas
 * and the live service have them: `message`, what else the error carries
 * (`errors`), `documentation_url`, and `status`, the HTTP status as a string.
 */

export const REST_DOCS = 'https://docs.example.com/rest';

export function apiError(status: number, message: string, more?: Record<string, unknown>, docs = REST_DOCS): Record<string, unknown> {
  return { message, ...more, documentation_url: docs, status: String(status) };
}

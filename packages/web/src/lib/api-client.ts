import {
  ACCOUNT_HEADER,
  ACCOUNT_NOT_FOUND,
  errorResponse,
  SPACE_HEADER,
  type ErrorBody,
  type ErrorDetail,
} from '@engram/shared';
import type { z } from 'zod';
import { forgetAccountId, readAccountId } from './account/account-store';
import { clearAuthToken, readAuthToken } from './auth-token';
import { CLIENT_ID_HEADER, TAB_CLIENT_ID } from './client-id';

/**
 * A failed call. `body` is the server's `{error, code, details}` when it sent
 * one; it is null for network failures and non-JSON answers, so screens can
 * tell "the server explained" from "something broke".
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody | null;

  constructor(status: number, body: ErrorBody | null, fallbackMessage: string) {
    super(body?.error ?? fallbackMessage);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }

  get code(): ErrorBody['code'] | null {
    return this.body?.code ?? null;
  }

  get details(): ErrorDetail[] {
    return this.body?.details ?? [];
  }

  /**
   * The account the request named (X-Engram-Account) is not one the person
   * belongs to (any more): removed from it, or it was deleted.
   */
  get isAccountGone(): boolean {
    return this.status === 404 && isAccountNotFound(this.body);
  }

  /** A 2xx whose body did not have the expected shape (e.g. no token after register). */
  get isUnexpectedResponse(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The message of the detail whose field path ends with `field` (e.g. 'currentPassword'). */
  detailFor(field: string): string | undefined {
    return this.details.find((detail) => detail.field.split('.').at(-1) === field)?.message;
  }
}

/**
 * A failed call's message when the server explained it (a plan limit, a name
 * taken, a refused URL); `fallback` for network failures and unreadable answers.
 */
export function errorMessage<F extends string | undefined>(
  error: unknown,
  fallback: F,
): string | F {
  return error instanceof ApiError && error.body ? error.message : fallback;
}

export interface RequestOptions<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Validates the success body; omit only for calls whose body is ignored. */
  schema?: z.ZodType<T>;
  /** Overrides the stored token, e.g. to revoke a session that was never stored. */
  token?: string;
  /**
   * Whether a 401 means "the session is gone" (clear it and go to /login: docs/product.md, States).
   * Login (401 = wrong password) and the start-up session check turn this off.
   */
  signOutOnUnauthorized?: boolean;
  /**
   * The memory space a graph call acts in (its slug, sent as X-Engram-Space);
   * omitted, the server uses the default space (or, for analytics, the whole account).
   */
  space?: string | null;
  /**
   * The account the call acts in (X-Engram-Account). Omitted: the one chosen
   * in the account switcher, if any; null: none (the person's own account,
   * or a call about the person rather than an account).
   */
  account?: string | null;
}

function isAccountNotFound(body: ErrorBody | null): boolean {
  return body?.error.startsWith(ACCOUNT_NOT_FOUND) ?? false;
}

type UnauthorizedHandler = () => void;
let onUnauthorized: UnauthorizedHandler = () => {
  window.location.assign('/login');
};

type AccountGoneHandler = () => void;
let onAccountGone: AccountGoneHandler = () => undefined;

/**
 * The session layer registers what to do when the chosen account answers
 * 404 "Account not found" (the person was removed from it): the choice is
 * already forgotten, so the next calls act in the person's own account.
 */
export function setAccountGoneHandler(handler: AccountGoneHandler): () => void {
  const previous = onAccountGone;
  onAccountGone = handler;
  return () => {
    onAccountGone = previous;
  };
}

/** The session layer registers how to sign out in-app (without a full reload). */
export function setUnauthorizedHandler(handler: UnauthorizedHandler): () => void {
  const previous = onUnauthorized;
  onUnauthorized = handler;
  return () => {
    onUnauthorized = previous;
  };
}

function parseErrorBody(payload: unknown): ErrorBody | null {
  const parsed = errorResponse.safeParse(payload);
  // The wire `code` is a plain string; trust the server to send one of ERROR_CODES.
  return parsed.success ? (parsed.data as ErrorBody) : null;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The one way the app talks to the server: same origin, JSON, bearer token. */
export async function apiRequest<T = unknown>(
  path: string,
  {
    method = 'GET',
    body,
    schema,
    token,
    signOutOnUnauthorized = true,
    space,
    account,
  }: RequestOptions<T> = {},
): Promise<T> {
  // The tab's id: realtime events of the changes it makes come back marked as its own.
  const headers: Record<string, string> = {
    Accept: 'application/json',
    [CLIENT_ID_HEADER]: TAB_CLIENT_ID,
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const bearer = token ?? readAuthToken();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (space) headers[SPACE_HEADER] = space;
  const accountId = account === undefined ? readAccountId() : account;
  if (accountId) headers[ACCOUNT_HEADER] = accountId;

  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, null, 'Could not reach the server');
  }

  const payload = await readJson(response);

  if (!response.ok) {
    if (response.status === 401 && signOutOnUnauthorized) {
      clearAuthToken();
      onUnauthorized();
    }
    const errorBody = parseErrorBody(payload);
    // Only the account still chosen is forgotten: an answer to a call made before a switch is not.
    if (
      response.status === 404 &&
      accountId &&
      accountId === readAccountId() &&
      isAccountNotFound(errorBody)
    ) {
      forgetAccountId();
      onAccountGone();
    }
    throw new ApiError(response.status, errorBody, `Request failed with status ${response.status}`);
  }

  if (!schema) return payload as T;
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    throw new ApiError(response.status, null, `Unexpected response from ${method} ${path}`);
  }
  return parsed.data;
}

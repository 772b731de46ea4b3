import {
  authResponse,
  changePasswordInput,
  deleteAccountInput,
  errorResponse,
  loginInput,
  me,
  okResponse,
  personalApiKey,
  registerInput,
  updateProfileInput,
  user,
} from '@engram/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authOf } from '../../http/authenticate.js';
import { perAddressLimit } from '../../http/rate-limits.js';
import type { RouteOptions } from '../feature.js';
import type { AuthService } from './auth.service.js';
import { errorResponses } from '../../http/error-responses.js';

const errors = errorResponses('VALIDATION_ERROR', 'UNAUTHORIZED', 'CONFLICT', 'RATE_LIMITED');

export const authRoutes: FastifyPluginAsyncZod<RouteOptions<AuthService>> = async (
  app,
  { services: auth, http },
) => {
  // Sign-up and sign-in are the only unauthenticated writes: a tighter rate limit guards them.
  const guarded = { rateLimit: perAddressLimit(http.config.AUTH_RATE_LIMIT_PER_MINUTE) };

  app.post(
    '/auth/register',
    {
      config: guarded,
      schema: {
        tags: ['auth'],
        summary: 'Create a user and their personal account; returns a session token',
        body: registerInput,
        response: { 201: authResponse, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await auth.register(request.body, request.ip)),
  );

  app.post(
    '/auth/login',
    {
      config: guarded,
      schema: {
        tags: ['auth'],
        summary: 'Sign in with email and password; returns a session token',
        body: loginInput,
        response: { 200: authResponse, ...errors },
      },
    },
    async (request) => auth.login(request.body),
  );

  const security = [{ bearerAuth: [] }];
  // A person's own acts: an API key gets a 401 here (docs/architecture.md "Credentials").
  const onRequest = http.authenticateSession;

  app.get(
    '/auth/me',
    {
      onRequest,
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user',
        security,
        response: { 200: me, 401: errorResponse },
      },
    },
    async (request) => auth.getProfile(authOf(request)),
  );

  app.put(
    '/auth/me',
    {
      onRequest,
      schema: {
        tags: ['auth'],
        summary: "Update the signed-in user's first and last name",
        security,
        body: updateProfileInput,
        response: { 200: user, ...errors },
      },
    },
    async (request) => auth.updateProfile(authOf(request), request.body),
  );

  app.post(
    '/auth/password',
    {
      onRequest,
      schema: {
        tags: ['auth'],
        summary: 'Change the password; other sessions of the user end',
        security,
        body: changePasswordInput,
        response: { 200: okResponse, ...errors },
      },
    },
    async (request) => {
      await auth.changePassword(authOf(request), request.body);
      return { success: true as const };
    },
  );

  app.delete(
    '/auth/me',
    {
      onRequest,
      schema: {
        tags: ['auth'],
        summary:
          'Delete your user and the accounts you alone own, with all their data; takes your password',
        security,
        body: deleteAccountInput,
        response: { 200: okResponse, 403: errorResponse, 503: errorResponse, ...errors },
      },
    },
    async (request) => {
      await auth.deleteAccount(authOf(request), request.body);
      return { success: true as const };
    },
  );

  app.post(
    '/auth/me/api-key',
    {
      onRequest,
      schema: {
        tags: ['auth'],
        summary: 'Replace your personal API key; the old one stops working at once',
        security,
        response: { 200: personalApiKey, 401: errorResponse },
      },
    },
    async (request) => ({ apiKey: await auth.regenerateApiKey(authOf(request)) }),
  );

  app.post(
    '/auth/logout',
    {
      onRequest,
      schema: {
        tags: ['auth'],
        summary: 'End the current session',
        security,
        response: { 200: okResponse, 401: errorResponse },
      },
    },
    async (request) => {
      await auth.logout(authOf(request));
      return { success: true as const };
    },
  );
};

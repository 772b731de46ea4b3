import {
  acceptedInvitation,
  acceptInvitationInput,
  createdInvitation,
  createInvitationInput,
  errorResponse,
  invitationPreview,
  invitationPreviewInput,
  member,
  membersResponse,
  okResponse,
  transferOwnershipInput,
  updateMemberInput,
} from '@engram/shared';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../http/authenticate.js';
import { perAddressLimit } from '../../http/rate-limits.js';
import type { RouteOptions } from '../feature.js';
import type { MembersService } from './members.service.js';
import { resourceErrors } from '../../http/error-responses.js';

const userParams = z.object({ userId: z.string().max(64) });
const invitationParams = z.object({ id: z.string().max(64) });

export const membersRoutes: FastifyPluginAsyncZod<RouteOptions<MembersService>> = async (
  app,
  { services: members, http },
) => {
  const schema = { tags: ['members'], security: [{ bearerAuth: [] }] };

  // Members and invitations are people's acts: a session token only, never an API key.
  await app.register(async (plugin) => {
    const people = plugin.withTypeProvider<ZodTypeProvider>();
    people.addHook('onRequest', http.authenticateSession);

    people.get(
      '/api/members',
      {
        schema: {
          ...schema,
          summary: "The account's members, and (for owners and admins) its pending invitations",
          response: { 200: membersResponse, ...resourceErrors },
        },
      },
      async (request) => members.listMembers(authOf(request)),
    );

    people.patch(
      '/api/members/:userId',
      {
        schema: {
          ...schema,
          summary: "Change a member's role (owners and admins; only owners touch owners)",
          params: userParams,
          body: updateMemberInput,
          response: { 200: member, ...resourceErrors },
        },
      },
      async (request) =>
        members.updateRole(authOf(request), request.params.userId, request.body.role),
    );

    people.delete(
      '/api/members/:userId',
      {
        schema: {
          ...schema,
          summary:
            'Remove a member (owners and admins), or leave (your own id); their keys and sockets in the account end at once',
          params: userParams,
          response: { 200: okResponse, ...resourceErrors },
        },
      },
      async (request) => {
        await members.removeMember(authOf(request), request.params.userId);
        return { success: true as const };
      },
    );

    people.post(
      '/api/members/transfer-ownership',
      {
        schema: {
          ...schema,
          summary: 'Make another member the owner; you become an admin (owners only)',
          body: transferOwnershipInput,
          response: { 200: okResponse, ...resourceErrors },
        },
      },
      async (request) => {
        await members.transferOwnership(authOf(request), request.body.userId);
        return { success: true as const };
      },
    );

    people.post(
      '/api/members/invitations',
      {
        schema: {
          ...schema,
          summary:
            'Invite someone by email; the answer holds the link with its single-use token (mailed too when SMTP and PUBLIC_URL are set)',
          body: createInvitationInput,
          response: { 201: createdInvitation, ...resourceErrors },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await members.invite(authOf(request), request.body)),
    );

    people.delete(
      '/api/members/invitations/:id',
      {
        schema: {
          ...schema,
          summary: 'Revoke a pending invitation: its link stops working',
          params: invitationParams,
          response: { 200: okResponse, ...resourceErrors },
        },
      },
      async (request) => {
        await members.revokeInvitation(authOf(request), request.params.id);
        return { success: true as const };
      },
    );

    people.post(
      '/api/invitations/accept',
      {
        schema: {
          ...schema,
          summary: "Join the invitation's account with its role (the invitee's session)",
          body: acceptInvitationInput,
          response: { 200: acceptedInvitation, ...resourceErrors },
        },
      },
      async (request) => members.acceptInvitation(authOf(request), request.body.token),
    );
  });

  // Read before signing in (the invitation page): guarded like sign-in, per address.
  app.post(
    '/api/invitations/preview',
    {
      config: { rateLimit: perAddressLimit(http.config.AUTH_RATE_LIMIT_PER_MINUTE) },
      schema: {
        tags: ['members'],
        summary: 'What an invitation link offers: the account, the role and who sent it',
        body: invitationPreviewInput,
        response: { 200: invitationPreview, 400: errorResponse, 404: errorResponse },
      },
    },
    async (request) => members.previewInvitation(request.body.token),
  );
};

import type { Transporter } from 'nodemailer';
import { ROLE_LABELS, type Role } from '@engram/shared';

/** Sends one invitation; throws when the mail server refuses it. */
export type InvitationMailer = (invitation: {
  to: string;
  accountName: string;
  inviterName: string;
  role: Role;
  url: string;
  expiresAt: Date;
}) => Promise<void>;

/** A mailer over the SMTP server of `SMTP_URL`, or undefined when none is set (links are copied by hand). */
export function smtpInvitationMailer(
  smtpUrl: string | undefined,
  from: string | undefined,
): InvitationMailer | undefined {
  if (!smtpUrl || !from) return undefined;
  let transport: Transporter | undefined;
  return async (invitation) => {
    // Created on first use: a server that never invites never connects, nor loads the library.
    transport ??= (await import('nodemailer')).createTransport(smtpUrl, { from });
    const role = ROLE_LABELS[invitation.role];
    const until = invitation.expiresAt.toUTCString();
    await transport.sendMail({
      to: invitation.to,
      subject: `${invitation.inviterName} invited you to ${invitation.accountName} on Engram`,
      text: [
        `${invitation.inviterName} invited you to join ${invitation.accountName} on Engram as ${role}.`,
        '',
        `Accept the invitation: ${invitation.url}`,
        '',
        `The link works once and until ${until}. If you did not expect it, ignore this mail.`,
      ].join('\n'),
    });
  };
}

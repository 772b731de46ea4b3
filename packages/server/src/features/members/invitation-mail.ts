import type { Transporter } from 'nodemailer';
import { ROLE_LABELS, type Role } from '@engram/shared';
import type { Config } from '../../config.js';
import { localOrigin } from '../../lib/local-origin.js';

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

/**
 * The origin of invitation links, never a request's Host (docs/security.md):
 * PUBLIC_URL's, else the one the start banner prints (`localOrigin`, from HOST
 * and PORT). Only a PUBLIC_URL link is mailed (`invitationMailer`); the other
 * is shown to copy.
 */
export function invitationOrigin(config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>): string {
  return config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : localOrigin(config);
}

/**
 * The mailer invitations use: SMTP settings and PUBLIC_URL both set. Without
 * PUBLIC_URL no mail is sent: a link in a mail must name the address people
 * open, which only the operator knows (docs/product.md, Members).
 */
export function invitationMailer(
  config: Pick<Config, 'PUBLIC_URL' | 'SMTP_URL' | 'SMTP_FROM'>,
): InvitationMailer | undefined {
  return config.PUBLIC_URL ? smtpInvitationMailer(config.SMTP_URL, config.SMTP_FROM) : undefined;
}

/**
 * Mailbox REST API constants (spec: mailbox-and-service-health.md, part a).
 * Values only: the client and the emulator each implement their own parsing.
 */
export const Mailbox = {
  /** Path prefix before `/:domain/:user/mailbox`. */
  pathPrefix: '/rest/v2',
  defaultCount: 50,
  maxCount: 500,
  /** Label 0 ("all mails") is always present and cannot be removed. */
  allMailsLabel: 0,
  /** Markers as the server reports them; accepted in lower case too. */
  markers: ['SEEN', 'REPLIED', 'FORWARDED'] as const,
  /** Error messages of the real mail store (errors are JSON `{"message": ...}`). */
  messages: {
    notFound: 'Message not found',
    labelNotRemovable: 'This label cannot be removed',
  },
} as const;

export type MailboxMarker = (typeof Mailbox.markers)[number];

/** The seeded mailbox of the emulator. */
export const MailboxSeed = {
  domain: 'example.com',
  user: 'alice',
} as const;

/** An address as the metadata carries it. */
export interface MailboxAddress {
  address: string;
  name: string;
}

export interface MailboxPart {
  size: number;
  fileName: string;
  mimeType: string;
  /** The part's Content-ID without its angle brackets, when it has one. */
  contentId?: string;
  /** `attachment` or `inline`, as the part's Content-Disposition says, when it says. */
  disposition?: string;
}

/** Message metadata on the wire. */
export interface MailboxMetadata {
  labels: number[];
  size: number;
  date: string;
  subject?: string;
  uri?: string;
  markers?: string[];
  from?: MailboxAddress[];
  to?: MailboxAddress[];
  cc?: MailboxAddress[];
  bcc?: MailboxAddress[];
  replyTo?: MailboxAddress[];
  /** The Message-ID header. */
  messageId?: string;
  parts?: Record<string, MailboxPart>;
  textBody?: string;
  htmlBody?: string;
}

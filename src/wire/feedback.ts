import { z } from 'zod';
import { code, type ErrorCode } from '../errors.js';
import { bodyObject, hasControlCharacters, integerParam } from './input.js';

/**
 * Wire schemas of feedback (spec 2.5, 2.6, 3.2, 3.3, 8): item feedback, the seller inbox and
 * platform feedback. Zod only, shared by the routes (validation, OpenAPI and the manifest), the
 * typed client and the MCP tools.
 */
export const FEEDBACK_LIMITS = { text: 1000, contact: 120, rating: { min: 0, max: 10 } } as const;
export const INBOX_LIMITS = { default: 20, max: 100 } as const;

/** Length in characters (code points), as Postgres counts them. */
const chars = (s: string) => [...s].length;

/** A zod error option naming one catalog code, or another when the value is absent. */
const absentOr = (absent: ErrorCode, present: ErrorCode) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? absent : present),
});

/**
 * A feedback body's object: a key the route does not name is refused (`unknown_feedback_key`), not
 * dropped. Feedback is one per (item, buyer): a misspelt `text` dropped silently would record the
 * rating alone and leave no way to send the review again.
 */
const feedbackObject = <S extends z.core.$ZodLooseShape>(shape: S, otherwise: ErrorCode) =>
  bodyObject(shape, otherwise, 'unknown_feedback_key');

export const RatingSchema = z
  .number(code('invalid_rating'))
  .int(code('invalid_rating'))
  .min(FEEDBACK_LIMITS.rating.min, code('invalid_rating'))
  .max(FEEDBACK_LIMITS.rating.max, code('invalid_rating'))
  .describe('Whole number 0..10');

/** Review or message text: up to 1000 characters, no control characters but tab and newlines. */
const feedbackText = (missing: ErrorCode) =>
  z
    .string(absentOr(missing, 'invalid_text'))
    .refine((s) => chars(s) <= FEEDBACK_LIMITS.text, code('text_too_long'))
    .refine((s) => !hasControlCharacters(s), code('invalid_text'));

export const ItemFeedbackBodySchema = feedbackObject(
  {
    rating: RatingSchema.optional(),
    text: feedbackText('invalid_text')
      .optional()
      .describe('Review, up to 1000 characters; held for moderation before the seller sees it'),
  },
  'invalid_request',
)
  .nullish()
  .describe('At least one of rating and text (400 empty_feedback)');
export type ItemFeedbackBody = z.infer<typeof ItemFeedbackBodySchema>;

export const MODERATION_STATUSES = ['approved', 'pending'] as const;
export const ItemFeedbackCreatedSchema = z.object({
  feedback_id: z.uuid(),
  moderation_status: z
    .enum(MODERATION_STATUSES)
    .describe('approved (a rating alone, counted at once) or pending (text awaits moderation)'),
});
export type ItemFeedbackCreated = z.infer<typeof ItemFeedbackCreatedSchema>;

export const FeedbackParamsSchema = z.object({ uuid: z.uuid(code('invalid_feedback_id')) });

/** `true` or `false` in a query string (anything else is the given 400 code). */
const flag = (c: ErrorCode) =>
  z
    .enum(['true', 'false'], code(c))
    .optional()
    .transform((v) => v === 'true');

/** An ISO-8601 date (UTC midnight) or date-time with `Z` or an offset. */
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;
const instant = (c: ErrorCode) =>
  z
    .string(code(c))
    .regex(ISO_8601, code(c))
    .refine((s) => !Number.isNaN(Date.parse(s)), code(c))
    .transform((s) => new Date(s));

export const InboxQuerySchema = z.object({
  peek: flag('invalid_peek').describe('true: read without marking anything read (default false)'),
  include_read: flag('invalid_include_read').describe(
    'true: also rows already read (default false: unread only)',
  ),
  since: instant('invalid_since')
    .optional()
    .describe('ISO-8601; only feedback created at or after it'),
  until: instant('invalid_until').optional().describe('ISO-8601; only feedback created before it'),
  limit: integerParam('invalid_limit')
    .pipe(z.number().min(1, code('invalid_limit')).max(INBOX_LIMITS.max, code('invalid_limit')))
    .default(INBOX_LIMITS.default)
    .describe('Rows, an integer 1..100 (default 20)'),
});
export type InboxQuery = z.infer<typeof InboxQuerySchema>;

export const InboxRowSchema = z.object({
  feedback_id: z.uuid(),
  item_id: z.uuid(),
  rating: z.number().int().nullable().describe('0..10, or null for a review without rating'),
  text: z.string().nullable().describe('The approved review, or null for a rating alone'),
  created_at: z.string(),
  was_unread: z.boolean().describe('true when this read delivered the row for the first time'),
});
export type InboxRow = z.infer<typeof InboxRowSchema>;

export const InboxResponseSchema = z.object({
  items: z.array(InboxRowSchema).describe('Oldest first'),
});
export type InboxResponse = z.infer<typeof InboxResponseSchema>;

export const PlatformFeedbackBodySchema = feedbackObject(
  {
    text: feedbackText('empty_text')
      .refine((s) => s.trim().length > 0, code('empty_text'))
      .describe('1..1000 characters'),
    contact: z
      .string(code('invalid_contact'))
      .refine(
        (s) => chars(s) <= FEEDBACK_LIMITS.contact && !/[\r\n\u2028\u2029]/.test(s),
        code('invalid_contact'),
      )
      .refine((s) => !hasControlCharacters(s), code('invalid_contact'))
      .optional()
      .describe(
        'One line, at most 120 characters, prefixed with its channel (e.g. "email: a@b.c")',
      ),
  },
  'empty_text',
);
export type PlatformFeedbackBody = z.infer<typeof PlatformFeedbackBodySchema>;

export const PlatformFeedbackCreatedSchema = z.object({ feedback_id: z.uuid() });
export type PlatformFeedbackCreated = z.infer<typeof PlatformFeedbackCreatedSchema>;

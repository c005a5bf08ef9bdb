// The CLI's money-in commands, mirroring the admin API: `topups list`, `topups refund ID`,
// `codes create`. Answers undefined for any other command.
import type { AppContext } from '../context.js';
import { AppError } from '../domain/errors.js';
import { presentAdminTopup, presentRefund } from '../http/presenters/topups.js';
import { pageLimit } from '../http/routes/native/topups.js';

export async function paymentsCommand(
  ctx: AppContext,
  words: string,
  rest: string[],
  flags: Record<string, string | true>,
): Promise<number | undefined> {
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
  const text = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  switch (words) {
    case 'topups list': {
      const limit = pageLimit(text('limit'));
      const messaging = text('messaging-id');
      const rows = await ctx.storage.topups.listForAdmin({
        status: text('status'),
        method: text('method'),
        messagingId: messaging === undefined ? undefined : Number(messaging),
        limit,
        after: text('after'),
      });
      print({ data: rows.slice(0, limit).map((r) => presentAdminTopup(r)), has_more: rows.length > limit });
      return 0;
    }
    case 'topups refund': {
      if (!rest[0]) throw new AppError('missing_parameter', 'topups refund needs a top-up ID');
      const { topup, refund } = await ctx.payments.refunds.refund(rest[0], text('amount'));
      const account = await ctx.storage.accounts.byId(Number(topup.account_id));
      print({ ...presentAdminTopup(topup, account?.messaging_id), refund: presentRefund(refund) });
      return refund.status === 'refused' ? 1 : 0;
    }
    case 'codes create': {
      const codes = await ctx.payments.codes.create({
        amount_rub: text('amount'),
        count: flags.count === undefined ? 1 : Number(flags.count),
        expires_at: text('expires'),
      });
      print({ codes, note: 'the codes are shown only now' });
      return 0;
    }
    default:
      return undefined;
  }
}

// The Security page: two-factor authentication (turn on with a scanned secret confirmed by a code,
// recovery codes shown once, turn off or renew codes with a current code) and signing out everywhere.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import qrcode from 'qrcode-generator';
import type { AppContext } from '../../context.js';
import { otpauthUri } from '../../domain/panel/totp.js';
import type { CodeCheck, SecondFactorLockState } from '../../services/panel/panel-second-factor-limit.js';
import { badge, card, escapeHtml, flash, pageHeader } from '../../web/html.js';
import { csrfField, renderPage } from '../layout.js';
import { formBody, PANEL_ROUTE, readCookie, SESSION_COOKIE, sendHtml, setCookie } from '../panel-context.js';
import { lockEnd, lockedMessage, wrongCodeMessage } from '../second-factor-messages.js';
import type { AuthDeps } from './auth.js';

const ISSUER = 'gengate';

function qrSvg(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  return qr.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
}

function codeField(label = 'Code from your app'): string {
  return `<label>${escapeHtml(label)} <input name="code" class="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="20"></label>`;
}

function recoveryCodesCard(codes: string[]): string {
  return card(
    'Your recovery codes',
    `<p><strong>Save these now: they are shown only once.</strong> Each one signs you in once if you lose your phone.</p>
<ol class="codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ol>
<button type="button" class="btn" data-copy="${escapeHtml(codes.join('\n'))}">Copy all</button>`,
  );
}

/** The lock-out, or the wrong codes so far, so the owner sees someone guessing. */
function lockHtml(lock: SecondFactorLockState, now: number): string {
  if (lock.lockedUntil !== undefined) {
    const refusedText =
      lock.refused > 0
        ? ` ${lock.refused} attempt${lock.refused === 1 ? ' was' : 's were'} refused since.`
        : '';
    return `<div class="flash flash-error" role="alert" data-2fa-locked>${badge('Locked', 'warn')} Code checks are locked until ${escapeHtml(lockEnd(lock.lockedUntil, now))} after too many wrong codes.${escapeHtml(refusedText)} If it was not you, sign out everywhere below; the audit log lists every attempt.</div>`;
  }
  if (lock.failures > 0) {
    return `<p class="muted" data-2fa-failures>${lock.failures} wrong code${lock.failures === 1 ? '' : 's'} since the last right one: ${lock.attemptsLeft} more and code checks lock.</p>`;
  }
  return '';
}

export function registerSecurityPages(app: FastifyInstance, ctx: AppContext, deps: AuthDeps): void {
  const { twoFactor, sessions } = deps;
  const actor = (request: FastifyRequest) => ({ actor: 'owner', ip: request.ip });

  async function show(request: FastifyRequest, reply: FastifyReply, message = '', extra = '', status = 200) {
    const session = request.panel;
    const state = await twoFactor.status(session.accountId);
    const lock = await twoFactor.limit.state(session.accountId);
    let twoFactorHtml: string;
    if (state.enabled) {
      twoFactorHtml = `<p>${badge('On', 'ok')} Signing in asks for a code from your authenticator app.
${state.recoveryCodesLeft} recovery code${state.recoveryCodesLeft === 1 ? '' : 's'} left.</p>
<div class="grid">
<form method="post" action="/panel/security/2fa/recovery-codes" class="stack">${csrfField(session)}${codeField()}
<button class="btn" type="submit">New recovery codes</button></form>
<form method="post" action="/panel/security/2fa/disable" class="stack" data-confirm="Turn off two-factor authentication?">${csrfField(session)}${codeField('Code from your app or a recovery code')}
<button class="btn btn-danger" type="submit">Turn off</button></form>
</div>`;
    } else if (state.pendingSecret) {
      const uri = otpauthUri(state.pendingSecret, ISSUER, `account ${session.messagingId}`);
      twoFactorHtml = `<p>${badge('Setting up', 'warn')} Scan this code with an authenticator app (Google Authenticator, 1Password, Aegis…), then type the 6-digit code it shows.</p>
<div class="qr" aria-label="QR code of the secret">${qrSvg(uri)}</div>
<p>Or type the secret by hand:</p>
<div class="secret"><code data-totp-secret>${escapeHtml(state.pendingSecret)}</code><button type="button" class="btn btn-small" data-copy="${escapeHtml(state.pendingSecret)}">Copy</button></div>
<form method="post" action="/panel/security/2fa/confirm" class="stack">${csrfField(session)}${codeField()}
<button class="btn btn-primary" type="submit">Turn on</button></form>`;
    } else {
      twoFactorHtml = `<p>${badge('Off', 'muted')} Add a second step to signing in: a code from an authenticator app on your phone.</p>
<form method="post" action="/panel/security/2fa/setup">${csrfField(session)}<button class="btn btn-primary" type="submit">Set up two-factor authentication</button></form>`;
    }
    const body = `${pageHeader('Security', 'How you sign in to this panel')}${message}${extra}
${card('Two-factor authentication', lockHtml(lock, ctx.clock.now()) + twoFactorHtml)}
${card(
  'Sessions',
  `<p>Signed in somewhere you no longer use? End every session of this account, this one included.</p>
<form method="post" action="/panel/security/sign-out-everywhere" data-confirm="Sign out on every device?">${csrfField(session)}<button class="btn btn-danger" type="submit">Sign out everywhere</button></form>`,
)}`;
    return sendHtml(reply, status, renderPage({ title: 'Security', active: 'security', session, body }));
  }

  app.get('/panel/security', PANEL_ROUTE, (request, reply) => show(request, reply));

  app.post('/panel/security/2fa/setup', PANEL_ROUTE, async (request, reply) => {
    const secret = await twoFactor.beginSetup(request.panel.accountId);
    if (!secret) return show(request, reply, flash('info', 'Two-factor authentication is already on.'));
    return reply.redirect('/panel/security', 303);
  });

  /** A refused code: 429 while locked, else 422 with the attempts left (the lock when this one set it). */
  function refused(request: FastifyRequest, reply: FastifyReply, checked: CodeCheck<unknown>, hint = '') {
    const now = ctx.clock.now();
    if (checked.outcome === 'locked') {
      reply.header('Retry-After', String(Math.max(1, Math.ceil((checked.lockedUntil - now) / 1000))));
      return show(request, reply, flash('error', lockedMessage(checked.lockedUntil, now)), '', 429);
    }
    if (checked.outcome !== 'rejected') throw new Error('an accepted code is not a refusal');
    return show(request, reply, flash('error', wrongCodeMessage(checked, now, hint)), '', 422);
  }

  // Turning two-factor on and replacing the recovery codes both check a code from the app, then
  // show the new recovery codes once.
  function codeThenRecoveryCodes(
    path: string,
    check: (accountId: number, code: string, by: ReturnType<typeof actor>) => Promise<CodeCheck<string[]>>,
    done: string,
  ) {
    app.post(path, PANEL_ROUTE, async (request, reply) => {
      const code = formBody(request).get('code') ?? '';
      const checked = await check(request.panel.accountId, code, actor(request));
      if (checked.outcome !== 'accepted')
        return refused(request, reply, checked, 'Type the code your app shows now.');
      return show(request, reply, flash('ok', done), recoveryCodesCard(checked.value));
    });
  }

  codeThenRecoveryCodes(
    '/panel/security/2fa/confirm',
    (accountId, code, by) => twoFactor.confirmSetup(accountId, code, by),
    'Two-factor authentication is on.',
  );
  codeThenRecoveryCodes(
    '/panel/security/2fa/recovery-codes',
    (accountId, code, by) => twoFactor.regenerateRecoveryCodes(accountId, code, by),
    'New recovery codes made; the old ones no longer work.',
  );

  app.post('/panel/security/2fa/disable', PANEL_ROUTE, async (request, reply) => {
    const code = formBody(request).get('code') ?? '';
    const checked = await twoFactor.disable(request.panel.accountId, code, actor(request));
    if (checked.outcome !== 'accepted') return refused(request, reply, checked);
    return show(request, reply, flash('ok', 'Two-factor authentication is off.'));
  });

  app.post('/panel/security/sign-out-everywhere', PANEL_ROUTE, async (request, reply) => {
    const ended = await sessions.endAll(request.panel.accountId);
    await ctx.panel.owner.record(request.panel.accountId, actor(request), 'panel.signed_out_everywhere', {
      sessions: ended,
    });
    if (readCookie(request, SESSION_COOKIE)) setCookie(reply, SESSION_COOKIE, '', 0, deps.secure);
    return sendHtml(
      reply,
      200,
      renderPage({
        title: 'Signed out',
        body: `<div class="signin"><section class="card"><h1>Signed out everywhere</h1><p>${ended} session${ended === 1 ? '' : 's'} ended.</p></section></div>`,
      }),
    );
  });
}

// Kling authenticates every call with a short-lived JWT (HS256) that we sign ourselves from the
// access key (issuer) and the secret key. A fresh token per call: nothing to cache or refresh, and a
// token never outlives the 30 minutes Kling's examples give it.
import { createHmac } from 'node:crypto';

const TOKEN_LIFETIME_S = 1800;
/** Kling's examples start the validity 5 s in the past, for clock skew between us and them. */
const NOT_BEFORE_SKEW_S = 5;

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** A token `{alg: HS256, typ: JWT}.{iss, exp, nbf}` signed with the secret key; `nowMs` is epoch ms. */
export function klingJwt(accessKey: string, secretKey: string, nowMs: number): string {
  const now = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({ iss: accessKey, exp: now + TOKEN_LIFETIME_S, nbf: now - NOT_BEFORE_SKEW_S }),
  );
  const signature = createHmac('sha256', secretKey).update(`${header}.${claims}`).digest('base64url');
  return `${header}.${claims}.${signature}`;
}

// The access tokens of oauth2-token.mjs and how provider.mjs checks them: stateless, as a JWT,
// so that the token endpoint and the provider are separate processes sharing only a key:
// base64url({"jti", "exp"}) "." base64url(HMAC-SHA256(key, that first part)); exp in ms.
import { createHmac, randomUUID } from "node:crypto";
import { sameSecret } from "./peer.mjs";

const mac = (key, text) => createHmac("sha256", key).update(text).digest("base64url");

export function issueToken(key, now, ttlMs) {
  const claims = { jti: randomUUID(), exp: now + ttlMs };
  const head = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return { token: `${head}.${mac(key, head)}`, ...claims };
}

/** {verdict: ok|unknown|expired, jti?, late?, left?} for a token presented at `now` (ms). */
export function checkToken(key, token, now) {
  const dot = token.indexOf(".");
  if (dot < 0 || token.length > 4096) return { verdict: "unknown" };
  const head = token.slice(0, dot);
  if (!sameSecret(token.slice(dot + 1), mac(key, head))) return { verdict: "unknown" };
  const claims = JSON.parse(Buffer.from(head, "base64url").toString("utf8"));
  if (now >= claims.exp) return { verdict: "expired", jti: claims.jti, late: now - claims.exp };
  return { verdict: "ok", jti: claims.jti, left: claims.exp - now };
}

// A partner API that refuses (401) every call without a valid credential and allows no burst:
// at most RATE calls accepted in any sliding second (429 with Retry-After: 1 beyond).
//
//   AUTH=bearer  TOKEN=<token>       the one bearer token it accepts
//   AUTH=oauth2  ISSUER_KEY=<key>    tokens of oauth2-token.mjs: signed by the same key, refused
//                                    once expired (no grace), unknown if the signature is not its
//   RATE=20  RECORD_FILE=...  PORT_FILE=...
//
// One record line per call: {t, status, verdict, id, jti?}; verdict is ok, rate_limited,
// missing (no Authorization), wrong (bearer: another token), unknown (oauth2: not its signature),
// expired (oauth2: past its expiry by `late` ms); an oauth2 call accepted records the token's
// time `left` before expiry (ms).
import { env, serve, sameSecret, SlidingWindow } from "./peer.mjs";
import { checkToken } from "./tokens.mjs";

const mode = env("AUTH");
const window = new SlidingWindow(Number(env("RATE")), 1000);
const expected = mode === "bearer" ? env("TOKEN") : null;
const issuerKey = mode === "oauth2" ? env("ISSUER_KEY") : null;
if (mode !== "bearer" && mode !== "oauth2") {
  console.error("AUTH must be bearer or oauth2");
  process.exit(2);
}

function credential(req, t) {
  const h = req.headers.authorization;
  if (!h || !h.startsWith("Bearer ")) return { verdict: "missing" };
  const token = h.slice("Bearer ".length);
  if (mode === "bearer") return sameSecret(token, expected) ? { verdict: "ok" } : { verdict: "wrong" };
  return checkToken(issuerKey, token, t);
}

serve(`provider (${mode})`, (req, body, t) => {
  const id = req.headers["idempotency-key"];
  const c = credential(req, t);
  if (c.verdict !== "ok") {
    return {
      status: 401,
      headers: { "www-authenticate": 'Bearer error="invalid_token"' },
      body: JSON.stringify({ error: "invalid_token" }),
      record: { id, ...c },
    };
  }
  if (!window.tryAccept(t)) {
    return { status: 429, headers: { "retry-after": "1" }, record: { id, jti: c.jti, verdict: "rate_limited" } };
  }
  return { status: 200, record: { id, jti: c.jti, left: c.left, verdict: "ok", bytes: body.length } };
});

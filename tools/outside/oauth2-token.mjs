// An OAuth2 token endpoint, client-credentials grant only (RFC 6749 4.4), its client
// authenticated with HTTP Basic (client_secret_basic). Every token expires TTL seconds after
// it is issued (30 by default) and is signed with ISSUER_KEY, which provider.mjs shares.
//
//   CLIENT_ID, CLIENT_SECRET, ISSUER_KEY, TTL=30, RECORD_FILE, PORT_FILE,
//   SECRETS_FILE: every token issued, one a line (outside the run's logs: the judge greps
//   every log and topic for them)
//
// One record line per request: {t, status, verdict, jti?, exp?}; verdict is issued,
// bad_client, bad_grant.
import { appendFileSync } from "node:fs";
import { env, serve, sameSecret } from "./peer.mjs";
import { issueToken } from "./tokens.mjs";

const clientId = env("CLIENT_ID");
const clientSecret = env("CLIENT_SECRET");
const issuerKey = env("ISSUER_KEY");
const ttlMs = Number(process.env.TTL ?? "30") * 1000;
const secretsFile = env("SECRETS_FILE");

function basicClient(req) {
  const h = req.headers.authorization ?? "";
  if (!h.startsWith("Basic ")) return null;
  const text = Buffer.from(h.slice(6), "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 0) return null;
  // RFC 6749 2.3.1: the id and secret are form-urlencoded before Basic encoding
  return { id: decodeURIComponent(text.slice(0, colon).replace(/\+/g, " ")),
           secret: decodeURIComponent(text.slice(colon + 1).replace(/\+/g, " ")) };
}

serve("oauth2 token endpoint", (req, body) => {
  const client = basicClient(req);
  if (!client || !sameSecret(client.id, clientId) || !sameSecret(client.secret, clientSecret)) {
    return { status: 401, headers: { "www-authenticate": "Basic" },
             body: JSON.stringify({ error: "invalid_client" }), record: { verdict: "bad_client" } };
  }
  const form = new URLSearchParams(body.toString("utf8"));
  if (req.method !== "POST" || form.get("grant_type") !== "client_credentials") {
    return { status: 400, body: JSON.stringify({ error: "unsupported_grant_type" }),
             record: { verdict: "bad_grant" } };
  }
  const issued = issueToken(issuerKey, Date.now(), ttlMs);
  appendFileSync(secretsFile, issued.token + "\n");
  return {
    status: 200,
    headers: { "cache-control": "no-store" },
    body: JSON.stringify({ access_token: issued.token, token_type: "Bearer",
                           expires_in: ttlMs / 1000, scope: form.get("scope") ?? undefined }),
    record: { verdict: "issued", jti: issued.jti, exp: issued.exp, scope: form.get("scope") },
  };
});

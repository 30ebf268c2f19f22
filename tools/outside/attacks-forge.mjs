// Tenant A forging a webhook for tenant B's receiver, with what tenant A holds: its own endpoint's
// signing secret (A_SECRET_FILE, as `sluice tenants secret` gave A's operator) and the genuine
// deliveries Sluice made to A (A_CAPTURE_FILE, whole). Two tries against B_URL, each signed with
// the Standard Webhooks reference library or taken from the wire:
//   forged:   a new message (B's tenant in its body) signed now with A's secret;
//   replayed: a genuine delivery to A, its headers and body as A received them.
// Prints one JSON line per try: {try, status} (B's receiver answers 200 when it verifies).
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { env } from "./peer.mjs";

const aSecret = readFileSync(env("A_SECRET_FILE"), "utf8").trim();
const captured = readFileSync(env("A_CAPTURE_FILE"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
const bUrl = env("B_URL");

async function send(name, headers, body) {
  const res = await fetch(bUrl, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  console.log(JSON.stringify({ try: name, status: res.status, id: headers["webhook-id"] }));
}

const id = "msg_forged_by_tenant_a";
const now = new Date();
const body = JSON.stringify({ tenant: "tb", payload: { order: 1, note: "refund approved" } });
const signature = new Webhook(aSecret).sign(id, now, body);
await send("forged", {
  "webhook-id": id, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signature,
}, body);
if (captured.length === 0) {
  console.log(JSON.stringify({ try: "replayed", status: null, why: "A received no genuine delivery" }));
} else {
  const last = captured[captured.length - 1];
  await send("replayed", last.headers, last.body);
}

// A webhook receiver no one on the project wrote the verification of: every call is checked
// with the Standard Webhooks reference library (npm `standardwebhooks`, the copy pinned in
// dispatcher/src/test/node/standardwebhooks), as a receiver in production would. It holds one
// secret at a time, read from SECRET_FILE at start and again on SIGUSR2 (the receiver moving to
// the new key during a rotation). 200 when the call verifies, 401 when it does not.
//
//   SECRET_FILE, RECORD_FILE, PORT_FILE [, CAPTURE_FILE]
//
// With CAPTURE_FILE, every call it accepts is also appended there whole ({headers, body}): what
// its tenant holds, and could replay elsewhere (attacks.sh).
// One record line per call: {t, status, verdict: accepted|refused, id, key, signatures, reason?}, where key
// counts the receiver's switches (0 before the first); a switch adds {t, switch: key}.
import { appendFileSync, readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { env, serve } from "./peer.mjs";

const secretFile = env("SECRET_FILE");
let key = 0;
let webhook = new Webhook(readFileSync(secretFile, "utf8").trim());

const write = serve("webhook receiver", (req, body) => {
  const headers = {
    "webhook-id": req.headers["webhook-id"],
    "webhook-timestamp": req.headers["webhook-timestamp"],
    "webhook-signature": req.headers["webhook-signature"],
  };
  const id = headers["webhook-id"];
  const signatures = String(headers["webhook-signature"] ?? "").split(" ").filter(Boolean).length;
  try {
    webhook.verify(body.toString("utf8"), headers);
    if (process.env.CAPTURE_FILE) {
      appendFileSync(process.env.CAPTURE_FILE, JSON.stringify({ headers, body: body.toString("utf8") }) + "\n");
    }
    return { status: 200, record: { id, key, signatures, verdict: "accepted" } };
  } catch (e) {
    return { status: 401, body: JSON.stringify({ error: "signature" }),
             record: { id, key, signatures, verdict: "refused", reason: String(e.message) } };
  }
});

process.on("SIGUSR2", () => {
  webhook = new Webhook(readFileSync(secretFile, "utf8").trim());
  key += 1;
  write({ t: performance.timeOrigin + performance.now(), switch: key });
});

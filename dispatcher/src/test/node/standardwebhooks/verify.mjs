// Reads one JSON case per line on stdin: {secret, id, timestamp, body (base64), signature}.
// Verifies each with the Standard Webhooks reference library, as a receiver would, and prints
// "ok" or "refused: <reason>" per line, in order.
import { Webhook } from "standardwebhooks";
import { createInterface } from "node:readline";

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  try {
    const wh = new Webhook(c.secret);
    const body = Buffer.from(c.body, "base64").toString("utf8");
    wh.verify(body, {
      "webhook-id": c.id,
      "webhook-timestamp": String(c.timestamp),
      "webhook-signature": c.signature,
    });
    console.log("ok");
  } catch (e) {
    console.log("refused: " + (e && e.message ? e.message : String(e)));
  }
}

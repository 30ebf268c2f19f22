// A partner API for the operations check (operations.sh): allows no burst (at most RATE calls
// accepted in any sliding second, 429 with Retry-After: 1 beyond), and answers 400 to every call
// while MODE_FILE holds "broken" (read on each call, so the script flips it without a restart).
// With FAIL_EVERY=N (optional), every Nth call it accepts within its rate answers 500 instead
// (intake.sh's ordering part: a head retried must still go before its followers).
//
//   RATE=20  MODE_FILE=...  RECORD_FILE=...  PORT_FILE=...  [FAIL_EVERY=10]
//
// One record line per call: {t, status, id, tenant, verdict}; the tenant is read from the
// payload (the load writes it there), bounded to 64 characters.
import { readFileSync } from "node:fs";
import { env, serve, SlidingWindow } from "./peer.mjs";

const window = new SlidingWindow(Number(env("RATE")), 1000);
const modeFile = env("MODE_FILE");
const failEvery = Number(process.env.FAIL_EVERY || 0);
let accepted = 0;

function mode() {
  try {
    return readFileSync(modeFile, "utf8").trim();
  } catch {
    return "ok";
  }
}

function tenantOf(body) {
  try {
    const t = JSON.parse(body.toString("utf8")).tenant;
    return typeof t === "string" ? t.slice(0, 64) : null;
  } catch {
    return null;
  }
}

serve("ops provider", (req, body, t) => {
  const id = req.headers["idempotency-key"];
  const tenant = tenantOf(body);
  if (mode() === "broken") {
    return { status: 400, body: JSON.stringify({ error: "bad_request" }), record: { id, tenant, verdict: "broken" } };
  }
  if (!window.tryAccept(t)) {
    return { status: 429, headers: { "retry-after": "1" }, record: { id, tenant, verdict: "rate_limited" } };
  }
  if (failEvery > 0 && ++accepted % failEvery === 0) {
    return { status: 500, body: JSON.stringify({ error: "injected" }), record: { id, tenant, verdict: "failed" } };
  }
  return { status: 200, record: { id, tenant, verdict: "ok" } };
});

// N customer endpoints in one Node.js process, one port: /e/<i> for i in 1..N, each a receiver
// that allows no burst (at most RATE calls accepted in any sliding second, or below 1/s one in
// any 1/RATE seconds; 429 with Retry-After: 1 beyond) and verifies every call with the Standard
// Webhooks reference library (npm `standardwebhooks`, the pinned copy) before it counts it (401
// when it does not verify).
//
//   ENDPOINTS=1000  RATE=2  SECRET_FILE=...  MODES_FILE=...  RECORD_FILE=...  PORT_FILE=...
//
// endpoints.sh serves every configured tenant's endpoint (--configured, the warm-up's too): a
// sliding window each, small enough for 10,000.
// MODES_FILE (JSON, read at start and on SIGUSR2) turns endpoints faulty: {"3": "slow"} answers
// endpoint 3 after SLOW_MS (10 s by default, past Sluice's timeout), {"4": "fail"} answers 500;
// an endpoint not named answers as above; every call is verified first, a faulty one's too. A
// switch adds {t, modes}.
// One record line per call: {t, path, endpoint, status, verdict, id}; verdict is accepted,
// rate_limited, refused (the signature), slow or failing; a call to no endpoint is 404 unknown.
// A call's t is when this process handles it: when its own event loop stalls, calls queue in the
// kernel and are then handled close together. Each second in which the loop was held up more
// than 20 ms adds {t, stallMs} (the longest delay seen), so a 429 can be told from the
// endpoint's own stall.
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Webhook } from "standardwebhooks";
import { env, nowMs, serve, SlidingWindow } from "./peer.mjs";

const endpoints = Number(env("ENDPOINTS"));
const rate = Number(env("RATE"));
const slowMs = Number(process.env.SLOW_MS ?? 10000);
const webhook = new Webhook(readFileSync(env("SECRET_FILE"), "utf8").trim());
// RATE calls in any second; below 1/s, one call in any 1/RATE seconds.
// Endpoints 1 and 2 (the faulty ones) allow FAULTY_RATE instead, when given.
const faultyRate = Number(process.env.FAULTY_RATE ?? rate);
const windowOf = (r) => (r >= 1 ? new SlidingWindow(r, 1000) : new SlidingWindow(1, 1000 / r));
const windows = Array.from({ length: endpoints + 1 }, (_, e) => windowOf(e === 1 || e === 2 ? faultyRate : rate));
const modesFile = env("MODES_FILE");
const readModes = () => JSON.parse(readFileSync(modesFile, "utf8"));
let modes = readModes();

const write = serve(`${endpoints} endpoints`, async (req, body, t) => {
  const m = /^\/e\/(\d+)$/.exec(req.url);
  const endpoint = m ? Number(m[1]) : 0;
  if (endpoint < 1 || endpoint > endpoints) return { status: 404, record: { verdict: "unknown" } };
  const id = req.headers["webhook-id"];
  try {
    webhook.verify(body.toString("utf8"), {
      "webhook-id": id,
      "webhook-timestamp": req.headers["webhook-timestamp"],
      "webhook-signature": req.headers["webhook-signature"],
    });
  } catch (e) {
    return { status: 401, record: { endpoint, id, verdict: "refused", reason: String(e.message) } };
  }
  const mode = modes[endpoint];
  if (mode === "slow") {
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    return { status: 200, record: { endpoint, id, verdict: "slow" } };
  }
  if (mode === "fail") return { status: 500, record: { endpoint, id, verdict: "failing" } };
  if (!windows[endpoint].tryAccept(t)) {
    return { status: 429, headers: { "retry-after": "1" }, record: { endpoint, id, verdict: "rate_limited" } };
  }
  return { status: 200, record: { endpoint, id, verdict: "accepted" } };
});

process.on("SIGUSR2", () => {
  modes = readModes();
  write({ t: nowMs(), modes });
});

const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
setInterval(() => {
  const stallMs = loop.max / 1e6;
  if (stallMs > 20) write({ t: nowMs(), stallMs: Math.round(stallMs) });
  loop.reset();
}, 1000).unref();

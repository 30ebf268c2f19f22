// A partner API with a batch endpoint whose limit counts calls, not items: at most RATE calls
// accepted in any sliding second, no burst (429 with Retry-After: 1 beyond). A call's body must
// be a JSON array of events' payloads, each carrying its event's id as `id`. The first call
// carrying FAIL_ID is accepted (200) with that one event listed as failed:
// {"results":[{"id":FAIL_ID,"status":503}]}; every other event of every accepted call is accepted.
//
//   RATE=10  FAIL_ID=<event id>  RECORD_FILE=...  PORT_FILE=...
//
// One record line per call: {t, status, verdict, key, n, ids}: ids are the payloads' ids in order.
import { env, serve, SlidingWindow } from "./peer.mjs";

const window = new SlidingWindow(Number(env("RATE")), 1000);
const failId = env("FAIL_ID");
let failed = false;

serve("batch provider", (req, body, t) => {
  const key = req.headers["idempotency-key"];
  let items;
  try {
    items = JSON.parse(body.toString("utf8"));
  } catch (e) {
    return { status: 400, record: { key, verdict: "not_json" } };
  }
  if (!Array.isArray(items)) return { status: 400, record: { key, verdict: "not_an_array" } };
  const ids = items.map((p) => (p && typeof p.id === "string" ? p.id : null));
  if (!window.tryAccept(t)) {
    return { status: 429, headers: { "retry-after": "1" }, record: { key, verdict: "rate_limited", n: ids.length, ids } };
  }
  if (!failed && ids.includes(failId)) {
    failed = true;
    return {
      status: 200,
      body: JSON.stringify({ results: [{ id: failId, status: 503 }] }),
      record: { key, verdict: "one_failed", n: ids.length, ids },
    };
  }
  return { status: 200, record: { key, verdict: "ok", n: ids.length, ids } };
});

// Judges a run of integrations.sh from the peers' own records and the topics kcat read back:
//   node judge.mjs WORK_DIR MIN_SIGNED
// Prints the figures and each verdict, writes WORK_DIR/figures.json, exits 1 if a verdict fails.
import { readFileSync, existsSync, writeFileSync } from "node:fs";

const [dir, minSignedText] = process.argv.slice(2);
const minSigned = Number(minSignedText);
const lines = (file) => existsSync(file)
  ? readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "") : [];
const records = (name) => lines(`${dir}/records/${name}.jsonl`).map((l) => JSON.parse(l));
const count = (items, key) => items.reduce((m, x) => ({ ...m, [x[key]]: (m[x[key]] ?? 0) + 1 }), {});

/** The most calls `accepted` holds in any window of `ms` (arrival times, sorted). */
function mostInWindow(times, ms) {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

function provider(name) {
  const calls = records(name);
  const refusedCredential = calls.filter((c) => c.status === 401);
  const ok = calls.filter((c) => c.status === 200).map((c) => c.t).sort((a, b) => a - b);
  return {
    calls: calls.length,
    status: count(calls, "status"),
    verdicts: count(calls, "verdict"),
    withoutValidCredential: refusedCredential.length,
    tokensUsed: new Set(calls.filter((c) => c.jti).map((c) => c.jti)).size,
    leastTokenLifeLeftMs: calls.some((c) => c.left !== undefined)
      ? Math.round(Math.min(...calls.filter((c) => c.left !== undefined).map((c) => c.left))) : null,
    mostAcceptedInAnySecond: mostInWindow(ok, 1000),
    acceptedPerSecond: ok.length > 1 ? Number((ok.length / ((ok.at(-1) - ok[0]) / 1000)).toFixed(2)) : 0,
    spanSeconds: calls.length ? Math.round((calls.at(-1).t - calls[0].t) / 1000) : 0,
  };
}

const tokenRequests = records("oauth-token");
const issued = tokenRequests.filter((r) => r.verdict === "issued");
const webhookLines = records("webhooks");
const webhookCalls = webhookLines.filter((r) => r.switch === undefined);
const switches = webhookLines.filter((r) => r.switch !== undefined);
const accepted = webhookCalls.filter((c) => c.verdict === "accepted");

const topicValues = (topic) => lines(`${dir}/topics/${topic}.txt`);
const dlq = topicValues("sluice.dlq");
const reasons = count(dlq.map((l) => ({ reason: (l.match(/sluice-reason=([a-z_0-9]+)/) ?? [])[1] ?? "?" })), "reason");
const outcomes = topicValues("sluice.outcomes").map((l) => JSON.parse(l.slice(l.indexOf(" value ") + 7)));
const produced = JSON.parse(readFileSync(`${dir}/produced.json`, "utf8"));
const delivered = count(outcomes, "provider");
const deliveredIds = new Set(outcomes.map((o) => o.id));

const figures = {
  produced,
  delivered,
  deliveredDistinct: deliveredIds.size,
  deliveredAfterMoreThanOneAttempt: outcomes.filter((o) => o.attempts > 1).length,
  deadLetters: dlq.length,
  deadLetterReasons: reasons,
  bearer: provider("bearer-api"),
  oauth2: {
    tokenRequests: tokenRequests.length,
    tokensIssued: issued.length,
    tokenRequestsRefused: tokenRequests.length - issued.length,
    provider: provider("oauth-api"),
  },
  webhooks: {
    calls: webhookCalls.length,
    accepted: accepted.length,
    refused: webhookCalls.length - accepted.length,
    acceptedByReceiverKey: count(accepted, "key"),
    receiverKeySwitches: switches.length,
    signaturesPerCall: count(webhookCalls, "signatures"),
    refusals: webhookCalls.filter((c) => c.verdict !== "accepted").slice(0, 5),
  },
};

const producedTotal = Object.values(produced).reduce((a, b) => a + b, 0);
const verdicts = [
  ["0 calls without a valid bearer token", figures.bearer.withoutValidCredential === 0 && figures.bearer.calls > 0],
  ["0 calls without a valid OAuth2 token (missing, unknown or expired)",
    figures.oauth2.provider.withoutValidCredential === 0 && figures.oauth2.provider.calls > 0],
  ["tokens expiring every 30 s were replaced during the run (more than one issued)",
    figures.oauth2.tokensIssued > 1],
  ["0 unauthorized dead letters", (reasons.unauthorized ?? 0) === 0],
  [`100% of at least ${minSigned} signed calls accepted by standardwebhooks`,
    figures.webhooks.refused === 0 && figures.webhooks.accepted >= minSigned],
  ["the receiver switched keys twice, accepting calls under each key",
    switches.length === 2 && Object.keys(figures.webhooks.acceptedByReceiverKey).length === 3],
  [`every event delivered (${producedTotal} produced, distinct ids in outcomes)`,
    deliveredIds.size === producedTotal && dlq.length === 0],
];

writeFileSync(`${dir}/figures.json`, JSON.stringify(figures, null, 2));
console.log(JSON.stringify(figures, null, 2));
let failed = false;
for (const [what, ok] of verdicts) {
  console.log(`${ok ? "PASS" : "FAIL"}  ${what}`);
  failed ||= !ok;
}
process.exit(failed ? 1 : 0);

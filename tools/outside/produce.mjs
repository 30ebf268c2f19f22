// The load: work events as kcat -P -K'\t' reads them (tenant, a tab, the JSON event), written
// to standard output at each provider's rate for DURATION seconds after a first burst of BURST
// events per provider (which Sluice must spread out: the providers allow none). Prints the
// count per provider to COUNT_FILE at the end.
//
//   RATES="bearer-api:20,oauth-api:20,webhooks:10"  DURATION=300  BURST=40  COUNT_FILE=...
//
// An entry may name one tenant and its own burst, provider:rate:tenant:burst (a stream of that
// tenant only, ids <provider>-<tenant>-<n>); otherwise the events go round tenants t1..t5. A fifth
// field, provider:rate:tenant:burst:seconds, ends that stream after its own number of seconds
// (at most DURATION; the load as a whole still runs DURATION seconds).
// RATES="@FILE" reads the list from FILE: one environment string holds at most 128 KiB (Linux's
// MAX_ARG_STRLEN), about 6,000 tenants' entries.
import { readFileSync, writeFileSync } from "node:fs";
import { env } from "./peer.mjs";

const defaultBurst = Number(env("BURST"));
const ratesText = env("RATES").startsWith("@") ? readFileSync(env("RATES").slice(1), "utf8").trim() : env("RATES");
const rates = ratesText.split(",").map((s) => {
  const [provider, rate, tenant, burst, seconds] = s.split(":");
  return {
    provider, rate: Number(rate), tenant: tenant || undefined,
    burst: burst === undefined || burst === "" ? defaultBurst : Number(burst), sent: 0,
    seconds: seconds === undefined || seconds === "" ? undefined : Number(seconds),
  };
});
const durationMs = Number(env("DURATION")) * 1000;
for (const p of rates) p.durationMs = p.seconds === undefined ? durationMs : Math.min(durationMs, p.seconds * 1000);
const tenants = ["t1", "t2", "t3", "t4", "t5"];

function emit(p) {
  const n = p.sent++;
  const tenant = p.tenant ?? tenants[n % tenants.length];
  const event = {
    id: p.tenant ? `${p.provider}-${p.tenant}-${String(n).padStart(6, "0")}` : `${p.provider}-${String(n).padStart(6, "0")}`,
    tenant,
    provider: p.provider,
    payload: { order: n, tenant, note: "outside check", items: [{ sku: "A-1", qty: 2 }, { sku: "B-7", qty: 1 }] },
  };
  return `${tenant}\t${JSON.stringify(event)}\n`;
}

let out = "";
for (const p of rates) for (let i = 0; i < p.burst; i++) out += emit(p);
process.stdout.write(out);

const start = Date.now();
const tick = setInterval(() => {
  const elapsed = Math.min(Date.now() - start, durationMs);
  let lines = "";
  for (const p of rates) {
    const own = Math.min(elapsed, p.durationMs);
    while (p.sent - p.burst < Math.floor((p.rate * own) / 1000)) lines += emit(p);
  }
  if (lines) process.stdout.write(lines);
  if (elapsed >= durationMs) {
    clearInterval(tick);
    writeFileSync(env("COUNT_FILE"), JSON.stringify(Object.fromEntries(
      rates.map((p) => [p.tenant ? `${p.provider}:${p.tenant}` : p.provider, p.sent]))));
  }
}, 50);

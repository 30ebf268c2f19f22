// The load: work events as kcat -P -K'\t' reads them (tenant, a tab, the JSON event), written
// to standard output at each provider's rate for DURATION seconds after a first burst of BURST
// events per provider (which Sluice must spread out: the providers allow none). Prints the
// count per provider to COUNT_FILE at the end.
//
//   RATES="bearer-api:20,oauth-api:20,webhooks:10"  DURATION=300  BURST=40  COUNT_FILE=...
import { writeFileSync } from "node:fs";
import { env } from "./peer.mjs";

const rates = env("RATES").split(",").map((s) => {
  const [provider, rate] = s.split(":");
  return { provider, rate: Number(rate), sent: 0 };
});
const durationMs = Number(env("DURATION")) * 1000;
const burst = Number(env("BURST"));
const tenants = ["t1", "t2", "t3", "t4", "t5"];

function emit(p) {
  const n = p.sent++;
  const tenant = tenants[n % tenants.length];
  const event = {
    id: `${p.provider}-${String(n).padStart(6, "0")}`,
    tenant,
    provider: p.provider,
    payload: { order: n, tenant, note: "outside check", items: [{ sku: "A-1", qty: 2 }, { sku: "B-7", qty: 1 }] },
  };
  return `${tenant}\t${JSON.stringify(event)}\n`;
}

let out = "";
for (const p of rates) for (let i = 0; i < burst; i++) out += emit(p);
process.stdout.write(out);

const start = Date.now();
const tick = setInterval(() => {
  const elapsed = Math.min(Date.now() - start, durationMs);
  let lines = "";
  for (const p of rates) {
    while (p.sent - burst < Math.floor((p.rate * elapsed) / 1000)) lines += emit(p);
  }
  if (lines) process.stdout.write(lines);
  if (elapsed >= durationMs) {
    clearInterval(tick);
    writeFileSync(env("COUNT_FILE"), JSON.stringify(Object.fromEntries(rates.map((p) => [p.provider, p.sent]))));
  }
}, 50);

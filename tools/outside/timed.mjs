// Writes events at their times, as kcat -P -K'\t' reads them (tenant, a tab, the JSON event), for
// the intake check (intake.sh). Reads FILE: "offset_ms<TAB>tenant<TAB>event" lines sorted by
// offset, each written offset_ms after the start. An event with "aheadMs" gets instead a
// "deliverAt" that far from the moment it is written (an ISO instant); one with "deadlineInMs" a
// "deadline" so. Each write is recorded in
// SENT_FILE as {id, sent, deliverAt, deadline} (epoch milliseconds), for the judge.
//
//   node timed.mjs FILE SENT_FILE
import { createWriteStream, readFileSync } from "node:fs";

const [file, sentFile] = process.argv.slice(2);
const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => {
  const [offset, tenant, event] = l.split("\t");
  return { offset: Number(offset), tenant, event };
});
const sent = createWriteStream(sentFile);
const start = Date.now();
let i = 0;

function drain() {
  const now = Date.now();
  let chunk = "";
  while (i < lines.length && lines[i].offset <= now - start && chunk.length < 1 << 20) {
    const { tenant, event } = lines[i++];
    const e = JSON.parse(event);
    let deliverAt = null;
    let deadline = null;
    if (e.deadlineInMs !== undefined) {
      deadline = now + e.deadlineInMs;
      e.deadline = new Date(deadline).toISOString();
      delete e.deadlineInMs;
    }
    if (e.aheadMs !== undefined) {
      deliverAt = now + e.aheadMs;
      e.deliverAt = new Date(deliverAt).toISOString();
      delete e.aheadMs;
    }
    chunk += tenant + "\t" + JSON.stringify(e) + "\n";
    sent.write(JSON.stringify({ id: e.id, sent: now, deliverAt, deadline }) + "\n");
  }
  const more = () => (i < lines.length ? setTimeout(drain, Math.min(50, Math.max(0, lines[i].offset - (Date.now() - start)))) : sent.end());
  if (chunk.length === 0 || process.stdout.write(chunk)) more();
  else process.stdout.once("drain", more);
}
drain();

// The tenant's DNS, as the JVM's hosts file (-Djdk.net.hosts.file, read at every lookup when
// -Dsun.net.inetaddr.ttl=0): NAME answers PUBLIC and INTERNAL in turn, switching every PERIOD_MS,
// so that a lookup made for a check and one made for the connect a moment later can get
// different answers (DNS rebinding). Every other line (localhost, this host's name) stays put.
// Each version is written whole and renamed into place: a lookup never reads half a file.
//
//   HOSTS_FILE, NAME, PUBLIC, INTERNAL (127.0.0.1), PERIOD_MS (20), FIXED (the lines kept)
//
// On SIGTERM it prints how many times the answer switched.
import { writeFileSync, renameSync } from "node:fs";
import { env } from "./peer.mjs";

const file = env("HOSTS_FILE");
const name = env("NAME");
const answers = [env("PUBLIC"), process.env.INTERNAL ?? "127.0.0.1"];
const fixed = process.env.FIXED ?? "";
let switches = 0;

function write() {
  const answer = answers[switches % 2];
  writeFileSync(file + ".tmp", `${fixed}\n${answer} ${name}\n`);
  renameSync(file + ".tmp", file);
  switches += 1;
}
write();
const timer = setInterval(write, Number(process.env.PERIOD_MS ?? 20));
process.on("SIGTERM", () => {
  clearInterval(timer);
  console.log(JSON.stringify({ switches, answers }));
  process.exit(0);
});

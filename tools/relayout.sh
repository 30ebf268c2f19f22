#!/usr/bin/env bash
# Issue 21, parts 1 and 2: the lab apart and names that say where a change belongs. Every
# mechanical step of the new layout, so that it can be replayed on a later main (run it once on a
# clean tree, commit the result, then apply the hand edits on top). Whole directories move, so a
# file another branch added in one of them moves with it.
#
#   module            package(s)                 from
#   schemas           io.sluice.schemas.*        (stays; the contracts)
#                     io.sluice.config           io.sluice.schemas.config (the configuration loader)
#   embedded          io.sluice.embedded         (stays: the servers the lab and the tests start)
#                     io.sluice.embedded.mock    io.sluice.dispatcher.mock and bench/LimitReplay
#   testkit           io.sluice.testkit          io.sluice.embedded (testkit's classes)
#   topology          io.sluice.topology.gate, .limiter   (stays: the gate)
#   relay             io.sluice.relay, .it       io.sluice.topology.delay, RelayIT and its helpers
#   dispatcher        io.sluice.dispatcher.*     dispatcher-core/ (same packages)
#   app               io.sluice.app, .cli, .hanging, .ops, .it   dispatcher/ (the application shell)
#   lab               io.sluice.lab.demo, .bench, .chaos, .cli   dispatcher/ (demo, bench, chaos)
#
# Also: topology's gate/EventRules (the quota rules an event is charged against) becomes
# ChargedRules, so that EventRules names one thing (schemas' configuration rules of an event).
#
# Usage: tools/relayout.sh   (from anywhere inside the repository; needs git, perl)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

if [ ! -d dispatcher-core ]; then
  echo "relayout: dispatcher-core/ is gone: the layout was applied already" >&2
  exit 1
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "relayout: the work tree has uncommitted changes; commit or stash them first" >&2
  exit 1
fi

# git mv SRC DST, for a directory or a file; a directory whose target exists is merged entry by
# entry. Missing sources are skipped (a later main may have dropped them).
move() {
  local src=$1 dst=$2
  [ -n "$(git ls-files -- "$src" | head -1)" ] || { echo "relayout: skip $src (not there)"; return 0; }
  if [ -d "$src" ] && [ -d "$dst" ]; then
    local e
    for e in "$src"/* "$src"/.[!.]*; do
      [ -e "$e" ] || continue
      # build output and other untracked files stay where they are
      [ -n "$(git ls-files -- "$e" | head -1)" ] || continue
      move "$e" "$dst/$(basename "$e")"
    done
    rmdir "$src" 2>/dev/null || true
    return 0
  fi
  mkdir -p "$(dirname "$dst")"
  git mv "$src" "$dst"
}

# --- 1. the lab apart: demo, bench and chaos out of the application --------------------------
D=dispatcher/src
RELAY_IT_CLASSES="RelayIT Arrivals CrashingConsumer CrashingProducer Lateness ThreadDeaths RecordingRelayListener"
move $D/main/java/io/sluice/dispatcher/app/chaos       lab/src/main/java/io/sluice/lab/chaos
move $D/main/java/io/sluice/dispatcher/app/demo        lab/src/main/java/io/sluice/lab/demo
# LimitReplay judges the mock provider's windows; it goes with the mock (step 2), the rest of
# bench to the lab.
move $D/main/java/io/sluice/dispatcher/bench/LimitReplay.java \
     embedded/src/main/java/io/sluice/embedded/mock/LimitReplay.java
move $D/test/java/io/sluice/dispatcher/bench/LimitReplayTest.java \
     embedded/src/test/java/io/sluice/embedded/mock/LimitReplayTest.java
move $D/main/java/io/sluice/dispatcher/bench           lab/src/main/java/io/sluice/lab/bench
for c in DemoCommand BenchCommand ChaosCommand; do
  move $D/main/java/io/sluice/dispatcher/app/cli/$c.java lab/src/main/java/io/sluice/lab/cli/$c.java
done
move $D/test/java/io/sluice/dispatcher/app/chaos       lab/src/test/java/io/sluice/lab/chaos
move $D/test/java/io/sluice/dispatcher/app/demo        lab/src/test/java/io/sluice/lab/demo
move $D/test/java/io/sluice/dispatcher/bench           lab/src/test/java/io/sluice/lab/bench

# --- 2. the mock provider beside the other servers on free ports (embedded) -----------------
# A JDK-only HTTP server: the lab starts it, and so do the application's end-to-end tests
# (through testkit), which a mock inside the lab could not serve.
move $D/main/java/io/sluice/dispatcher/mock  embedded/src/main/java/io/sluice/embedded/mock
move $D/test/java/io/sluice/dispatcher/mock  embedded/src/test/java/io/sluice/embedded/mock

# --- 3. the application shell: dispatcher/ -> app/, io.sluice.dispatcher.{app,ops,it} -> io.sluice.app
move dispatcher app
A=app/src
move $A/main/java/io/sluice/dispatcher/app  $A/main/java/io/sluice/app
move $A/main/java/io/sluice/dispatcher/ops  $A/main/java/io/sluice/app/ops
move $A/test/java/io/sluice/dispatcher/app  $A/test/java/io/sluice/app
move $A/test/java/io/sluice/dispatcher/ops  $A/test/java/io/sluice/app/ops
move $A/test/java/io/sluice/dispatcher/it   $A/test/java/io/sluice/app/it
# A package a later main added under the application's io/sluice/dispatcher has no rule here:
# say so rather than guess where it belongs.
for side in main test; do
  find $A/$side/java/io/sluice/dispatcher -type d -empty -delete 2>/dev/null || true
  if [ -d $A/$side/java/io/sluice/dispatcher ]; then
    echo "relayout: WARNING: $A/$side/java/io/sluice/dispatcher still holds files: place them by hand" >&2
  fi
done

# --- 4. the dispatcher: dispatcher-core/ -> dispatcher/ (its packages are io.sluice.dispatcher.* already)
move dispatcher-core dispatcher

# --- 5. the relay: topology's delay package -> relay/, io.sluice.relay ------------------------
move topology/src/main/java/io/sluice/topology/delay  relay/src/main/java/io/sluice/relay
move topology/src/test/java/io/sluice/topology/delay  relay/src/test/java/io/sluice/relay
# The relay's integration test and the helpers only it uses; the two helpers it shares with the
# gate's ITs (a config with a fresh topic prefix, plain Kafka clients) go to testkit.
IT=topology/src/test/java/io/sluice/topology/it
for c in $RELAY_IT_CLASSES; do
  move $IT/$c.java relay/src/test/java/io/sluice/relay/it/$c.java
done
move $IT/TestConfigs.java testkit/src/main/java/io/sluice/testkit/TestConfigs.java
move $IT/Kafka.java       testkit/src/main/java/io/sluice/testkit/KafkaClients.java

# --- 6. the configuration loader: io.sluice.schemas.config -> io.sluice.config ---------------
move schemas/src/main/java/io/sluice/schemas/config  schemas/src/main/java/io/sluice/config
move schemas/src/test/java/io/sluice/schemas/config  schemas/src/test/java/io/sluice/config

# --- 7. testkit's own package: io.sluice.embedded (in testkit/) -> io.sluice.testkit ----------
move testkit/src/main/java/io/sluice/embedded  testkit/src/main/java/io/sluice/testkit
move testkit/src/test/java/io/sluice/embedded  testkit/src/test/java/io/sluice/testkit

# --- 8. one EventRules: the gate's becomes ChargedRules --------------------------------------
move topology/src/main/java/io/sluice/topology/gate/EventRules.java \
     topology/src/main/java/io/sluice/topology/gate/ChargedRules.java

# --- rewrites ---------------------------------------------------------------------------------
# Every Java file's package line from where it now stands.
git ls-files -z '*.java' | perl -0 -ne '
  chomp; my $f = $_;
  next unless $f =~ m{/src/(?:main|test)/java/(.+)/[^/]+\.java$};
  (my $pkg = $1) =~ tr{/}{.};
  local $/; open my $in, "<", $f or die "$f: $!"; my $s = <$in>; close $in;
  my $t = $s; $t =~ s/^package\s+[\w.]+\s*;/package $pkg;/m;
  if ($t ne $s) { open my $out, ">", $f or die; print $out $t; close $out; }
'

# Testkit's classes, named by their new package wherever they are used.
TESTKIT_CLASSES=$(cd testkit/src/main/java/io/sluice/testkit && ls *.java | sed 's/\.java$//' | paste -sd'|')

# Fully qualified names and paths, in code, poms, resources and docs (most specific first).
git ls-files -z -- '*.java' '*.xml' '*.md' '*.json' '*.yaml' '*.yml' '*.properties' \
    'Dockerfile' '.ci/run' ':!tools/relayout.sh' \
  | TESTKIT_CLASSES="$TESTKIT_CLASSES" RELAY_IT="${RELAY_IT_CLASSES// /|}" xargs -0 perl -pi -e '
  BEGIN { $tk = $ENV{TESTKIT_CLASSES}; }
  s/\bio\.sluice\.dispatcher\.bench\.LimitReplay\b/io.sluice.embedded.mock.LimitReplay/g;
  s/\bio\.sluice\.dispatcher\.app\.chaos\b/io.sluice.lab.chaos/g;
  s/\bio\.sluice\.dispatcher\.app\.demo\b/io.sluice.lab.demo/g;
  s/\bio\.sluice\.dispatcher\.bench\b/io.sluice.lab.bench/g;
  s/\bio\.sluice\.dispatcher\.mock\b/io.sluice.embedded.mock/g;
  s/\bio\.sluice\.dispatcher\.app\.cli\.(DemoCommand|BenchCommand|ChaosCommand)\b/io.sluice.lab.cli.$1/g;
  s/\bio\.sluice\.dispatcher\.app\b/io.sluice.app/g;
  s/\bio\.sluice\.dispatcher\.ops\b/io.sluice.app.ops/g;
  s/\bio\.sluice\.dispatcher\.it\b/io.sluice.app.it/g;
  s/\bio\.sluice\.topology\.delay\b/io.sluice.relay/g;
  s/\bio\.sluice\.topology\.it\.($ENV{RELAY_IT})\b/io.sluice.relay.it.$1/g;
  s/\bio\.sluice\.topology\.it\.(TestConfigs)\b/io.sluice.testkit.$1/g;
  s/\bio\.sluice\.topology\.it\.Kafka\b/io.sluice.testkit.KafkaClients/g;
  s/\bio\.sluice\.schemas\.config\b/io.sluice.config/g;
  s/\bio\.sluice\.embedded\.($tk)\b/io.sluice.testkit.$1/g;
  # paths and jars in docs, build files and code
  s{\bdispatcher/target/sluice\.jar(\s+(?:demo|bench|chaos)\b)}{lab/target/sluice-lab.jar$1}g;
  s{\bdispatcher/target/sluice\.jar\b}{app/target/sluice.jar}g;
  s{\bdispatcher/src/main/java/io/sluice/dispatcher/bench/}{lab/src/main/java/io/sluice/lab/bench/}g;
  s{\bdispatcher/pom\.xml\b}{app/pom.xml}g;
  s{-pl dispatcher(?![-\w])}{-pl app}g;
  s{-pl dispatcher-core\b}{-pl dispatcher}g;
'

# One EventRules: the gate's own uses of its rule list (not schemas' EventRules, which the gate's
# ValidateProcessor also uses).
git ls-files -z -- 'topology/src/*.java' 'docs/*.md' 'README.md' | xargs -0 perl -pi -e '
  s/\bfinal class EventRules\b/final class ChargedRules/;
  s/\bprivate EventRules\(\)/private ChargedRules()/;
  s/\bEventRules\.of\(/ChargedRules.of(/g;
  s/"left to EventRules"/"left to ChargedRules"/g;
  s/`EventRules` lists them/`ChargedRules` lists them/g;
'

# The tests' Kafka clients, named for what they are now that they live in testkit.
git ls-files -z -- 'topology/src/test/*.java' 'relay/src/test/*.java' 'testkit/src/*.java' \
  | xargs -0 perl -pi -e '
  s/\bKafka\.(producer|reader|readUntil)\(/KafkaClients.$1(/g;
  s/^public final class Kafka\b/public final class KafkaClients/;
  s/\bprivate Kafka\(\)/private KafkaClients()/;
'

# The lab's commands are no longer the application's: the application's command line loads them
# when the lab is on the class path (see Sluice), so they leave its subcommand list.
SLUICE=app/src/main/java/io/sluice/app/cli/Sluice.java
perl -0 -pi -e 's/\s*(?:DemoCommand|BenchCommand|ChaosCommand)\.class,//g' "$SLUICE"

# Imports a move made necessary: a class that left its package (or whose neighbours left) is now
# used by its simple name from another package. add_imports DIR FQN... adds "import FQN;" to each
# Java file under DIR that uses the simple name as a word and neither imports it nor is in its
# package.
add_imports() {
  local dir=$1; shift
  [ -d "$dir" ] || return 0
  find "$dir" -name '*.java' -print0 | FQNS="$*" xargs -0 perl -0 -pi -e '
    BEGIN { @fqns = split / /, $ENV{FQNS}; }
    my ($pkg) = /^package\s+([\w.]+)\s*;/m;
    (my $body = $_) =~ s{/\*.*?\*/|//[^\n]*}{}gs;
    $body =~ s/^(?:package|import)\b[^\n]*$//mg;
    my @add;
    for my $fqn (@fqns) {
      my ($p, $n) = $fqn =~ /^(.*)\.(\w+)$/;
      next if $p eq $pkg;
      next if /^import\s+\Q$fqn\E\s*;/m;
      next if /^import\s+[\w.]+\.\Q$n\E\s*;/m;
      push @add, "import $fqn;\n" if $body =~ /\b\Q$n\E\b/;
    }
    s/^(package\s+[\w.]+\s*;\n)\n?(?=(import\b)?)/$1 . "\n" . join("", @add) . ($2 ? "" : "\n")/me if @add;
  '
}
EMBEDDED_CLASSES=$(cd embedded/src/main/java/io/sluice/embedded && ls *.java | grep -v package-info \
  | sed 's/\.java$//; s/^/io.sluice.embedded./' | paste -sd' ')
add_imports testkit/src $EMBEDDED_CLASSES
add_imports topology/src/test io.sluice.testkit.TestConfigs io.sluice.testkit.KafkaClients
add_imports relay/src/test io.sluice.testkit.TestConfigs io.sluice.testkit.KafkaClients
add_imports lab/src/main/java/io/sluice/lab/cli io.sluice.app.cli.Sluice
add_imports lab/src/main/java/io/sluice/lab/bench io.sluice.embedded.mock.LimitReplay
add_imports lab/src/test/java/io/sluice/lab/bench io.sluice.embedded.mock.LimitReplay

echo "relayout: done; review with git status, then commit"

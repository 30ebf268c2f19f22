package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GateStateDirIT {
  @TempDir
  Path parent;

  /** A directory as a gate SIGKILLed while running leaves it: its lock file, held by nobody now. */
  private Path leftByAKilledGate(String name) throws IOException {
    Path dir = Files.createDirectory(parent.resolve(GateStateDir.PREFIX + name));
    Files.createFile(dir.resolve(GateStateDir.LOCK));
    Path app = Files.createDirectories(dir.resolve("sluice-gate-app"));
    Files.writeString(app.resolve("kafka-streams-process-metadata"), "{}");
    return dir;
  }

  @Test
  @DisplayName("a gate's state directory is removed when the gate closes")
  void removedOnClose() throws IOException {
    GateStateDir dir = GateStateDir.create(parent);
    Files.writeString(dir.path().resolve("kafka-streams-process-metadata"), "{}");
    assertTrue(Files.isDirectory(dir.path()));
    dir.close();
    assertFalse(Files.exists(dir.path()));
  }

  @Test
  @DisplayName("a starting gate removes what killed gates left, and nothing in use or not Sluice's")
  void staleRemovedAtStart() throws IOException {
    Path stale = leftByAKilledGate("killed1");
    Path other = Files.createDirectory(parent.resolve("kafka-streams-other-app"));
    Path noLockFile = Files.createDirectory(parent.resolve(GateStateDir.PREFIX + "older-version"));
    try (GateStateDir live = GateStateDir.create(parent)) {
      assertFalse(Files.exists(stale), "left by a killed gate");
      assertTrue(Files.isDirectory(other), "another application's");
      assertTrue(Files.isDirectory(noLockFile), "not known to be Sluice's own");

      try (GateStateDir second = GateStateDir.create(parent)) {
        assertTrue(Files.isDirectory(live.path()), "in use by a running gate: never removed");
        assertTrue(Files.isDirectory(second.path()));
      }
    }
    try (var left = Files.list(parent)) {
      assertEquals(List.of(noLockFile, other).stream().sorted().toList(), left.sorted().toList());
    }
  }

  @Test
  @DisplayName("a directory held by a gate in another process is kept, and removed once that process is killed")
  void keptWhileAnotherProcessHoldsIt() throws Exception {
    Process gate = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), HoldsGateStateDir.class.getName(), parent.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      Path held = Path.of(new java.io.BufferedReader(new java.io.InputStreamReader(gate.getInputStream()))
          .readLine());
      assertEquals(List.of(), GateStateDir.removeStale(parent), "its lock is held");
      assertTrue(Files.isDirectory(held));

      gate.destroyForcibly(); // SIGKILL: no close, the directory stays behind
      gate.waitFor();
      assertTrue(Files.isDirectory(held), "left behind");
      assertEquals(List.of(held), GateStateDir.removeStale(parent), "nobody holds it now");
      assertFalse(Files.exists(held));
    } finally {
      gate.destroyForcibly();
    }
  }
}

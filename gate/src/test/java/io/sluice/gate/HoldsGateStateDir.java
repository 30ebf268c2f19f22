package io.sluice.gate;

import java.nio.file.Path;

/**
 * A gate's state directory in a process of its own (for {@link GateStateDirIT}): creates one
 * under the parent given, prints its path, and holds it until killed or its input closes.
 */
public final class HoldsGateStateDir {
  private HoldsGateStateDir() {}

  public static void main(String[] args) throws Exception {
    GateStateDir dir = GateStateDir.create(Path.of(args[0]));
    System.out.println(dir.path());
    System.out.flush();
    while (System.in.read() >= 0) {
      // held until stdin closes, or the process is killed
    }
    dir.close();
  }
}

package io.sluice.app.it;

import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A dispatcher as its own OS process, for tests that kill it with SIGKILL: {@code main(yamlFile,
 * KEY=VALUE...)} runs {@link DispatcherService} (HTTP providers, the leak in Redis) exactly as the
 * {@code dispatch} command does. It prints {@code assigned=N} whenever the number of ready
 * partitions it owns changes, and exits when its standard input closes (the test JVM died), so
 * that no orphan outlives a crashed test run.
 */
public final class DispatcherChild {
  private DispatcherChild() {}

  public static void main(String[] args) throws IOException {
    Map<String, String> env = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      env.put(kv[0], kv[1]);
    }
    SluiceConfig config = ConfigLoader.parse(Files.readString(Path.of(args[0])), env);
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // the parent writes nothing; read until it closes the pipe
        }
      } catch (IOException e) {
        // the pipe broke: the parent is gone
      }
      Runtime.getRuntime().halt(3);
    }, "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    DispatcherService service = DispatcherService.start(config, DispatchListener.NONE);
    System.out.println("started");
    int last = -1;
    while (true) {
      int now = service.dispatcher().assignedReadyPartitions();
      if (now != last) {
        System.out.println("assigned=" + now);
        System.out.flush();
        last = now;
      }
      // Reporting a gauge to the parent, not synchronisation: the parent waits on what it reads.
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }
}
